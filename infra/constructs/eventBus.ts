import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { EVENT_SOURCE } from '../../lambdas/events/names';

export const ARCHIVE_RETENTION = Duration.days(90);

/** The custom event bus the pollers publish to, with an archive of everything they emit (replay). */
export class EventBus extends Construct {
	readonly bus: events.EventBus;
	readonly archive: events.Archive;

	constructor(scope: Construct, id: string) {
		super(scope, id);
		this.bus = new events.EventBus(this, 'Bus', { description: 'Test Equipment Cloud events (source test-equipment-cloud)' });
		this.archive = this.bus.archive('Archive', {
			description: 'Every test-equipment-cloud event, for replay',
			eventPattern: { source: [EVENT_SOURCE] },
			retention: ARCHIVE_RETENTION,
		});
	}
}
