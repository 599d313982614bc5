import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DueDevice, FailedDevice, FailedStep, OverdueDevice } from '../../email/devices';
import type { Recipients } from '../../email/routing';
import type { NoticeTexts } from '../../email/noticesRender';
import type { FailedDevice as FactDevice } from '../../lambdas/email/facts';
import type { CustomerNotices } from '../../lambdas/email/noticeSettings';
import type { Recipients as SettingsRecipients } from '../../lambdas/email/recipients';
import type * as Contract from '../../lambdas/events/schemas';
import { packProblems } from '../../scripts/packCheck';

describe('the e-mails’ room (email/): its own shapes, the contract’s and the settings’ alike', () => {
	it('what the events and settings carry fits what the renderers take, and back', () => {
		expectTypeOf<Contract.OverdueDevice>().toEqualTypeOf<OverdueDevice>();
		expectTypeOf<Contract.DueDevice>().toEqualTypeOf<DueDevice>();
		expectTypeOf<Contract.FailedStep>().toEqualTypeOf<FailedStep>();
		expectTypeOf<FactDevice>().toEqualTypeOf<FailedDevice>();
		expectTypeOf<SettingsRecipients>().toExtend<Recipients>();
		expectTypeOf<Recipients>().toExtend<SettingsRecipients>();
		expectTypeOf<CustomerNotices>().toExtend<NoticeTexts>();
	});

	it('ships with the package: a tarball without dist/email is refused', () => {
		const files = ['package.json', 'LICENSE', 'README.md', 'dist/nodes/TestEquipmentCloud/TestEquipmentCloud.node.js'];
		expect(packProblems(files)).toContain('missing: dist/email/render.js (the e-mails the node builds)');
		expect(packProblems([...files, 'dist/email/render.js'])).not.toContain('missing: dist/email/render.js (the e-mails the node builds)');
	});
});
