import { describe, it } from 'vitest';
import { EventBus } from '../../infra/constructs/eventBus';
import { getAtt, synthConstruct } from './synth';

describe('EventBus', () => {
	const s = synthConstruct('EventBusOnly', (stack) => new EventBus(stack, 'Events'));

	it('creates one custom bus with an archive of the test-equipment-cloud source, kept 90 days', () => {
		s.template.resourceCountIs('AWS::Events::EventBus', 1);
		s.template.hasResourceProperties('AWS::Events::Archive', {
			SourceArn: getAtt(s.id(s.construct.bus)),
			EventPattern: { source: ['test-equipment-cloud'] },
			RetentionDays: 90,
		});
		s.template.resourceCountIs('AWS::Events::Archive', 1);
	});
});
