import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { bindingName, committedSchemas, openApiDocument, schemaName, toOpenApiSchema } from '../../infra/constructs/eventSchemas';
import { makeEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES, type DetailType } from '../../lambdas/events/names';
import { BASE_CONFIG, synth } from './synth';

const basic = synth(BASE_CONFIG);
type Json = ReturnType<typeof JSON.parse>;
const ofType = (type: string) => Object.entries(basic.json.Resources as Record<string, { Type: string; Properties: Json }>).filter(([, r]) => r.Type === type);

/** One real event of each detail type, built and checked by the contract's zod schemas. */
const SAMPLES: Record<DetailType, unknown> = {
	[DETAIL_TYPES.deviceOverdue]: { device: device({ daysOverdue: 3, nextTestDate: '2026-01-01' }), episode: 1, reminder: 0 },
	[DETAIL_TYPES.deviceOverdueResolved]: { device: { id: 1, designation: null, idBarcode: 'B-1' }, episode: 1, overdueSince: '2026-01-02T00:00:00.000Z' },
	[DETAIL_TYPES.deviceDueSoon]: { device: { ...dueDevice(), nextTestDate: '2026-02-01', daysLeft: 7 }, stage: 7 },
	[DETAIL_TYPES.testResultRecorded]: { testResult: result(), device: { id: 1, customerId: null } },
	[DETAIL_TYPES.testResultFailed]: {
		testResult: result(),
		device: { id: 1, customerId: 2, designation: 'Drill', idBarcode: null, customerName: 'ACME', department: 'Lab' },
		failedSteps: [{ step: 2, name: 'Insulation resistance', status: 'failed', measurements: [{ name: 'R', value: 0.4, unit: 'MΩ', lowLimit: 1, highLimit: null, passed: false }], truncatedMeasurements: 0 }],
		failedStepCount: 3,
		truncatedSteps: 2,
	},
	[DETAIL_TYPES.testResultNearLimit]: {
		testResult: { ...result(), status: 'passed', passed: true },
		device: { id: 1, customerId: 2 },
		measurement: { step: 'Insulation resistance', measurement: null, value: 1.2, unit: 'MΩ', lowLimit: 1, highLimit: null, limitUsed: 0.833333333333, limitSide: 'low' },
		threshold: 0.8,
		predictedLimitDate: null,
	},
	[DETAIL_TYPES.deviceMeasurementDrift]: {
		testResult: { ...result(), status: 'passed', passed: true },
		device: { id: 1, customerId: null, nextTestDate: '2027-01-05' },
		measurement: { step: 'Insulation resistance', measurement: null, unit: 'MΩ', lowLimit: 1, highLimit: null },
		trend: {
			points: [
				{ testResultId: 3, testDate: '2024-01-05', value: 400 },
				{ testResultId: 6, testDate: '2025-01-05', value: 150 },
				{ testResultId: 9, testDate: '2026-01-05', value: 3 },
			],
			slopePerDay: -0.54,
			boundAtLast: -120.5,
			predictedLimitDate: '2026-01-05',
			predictedLimitSide: 'low',
		},
	},
	[DETAIL_TYPES.overdueDevicesDigest]: { count: 1, listed: 1, truncated: 0, groups: [{ customerName: null, department: 'Lab', count: 1, devices: [device({ daysOverdue: 1 })] }] },
};
function device(extra: Record<string, unknown>) {
	return { id: 1, designation: 'Drill', idBarcode: null, department: 'Lab', customerId: 2, customerName: 'ACME', lastTestedDate: '2025-01-01', nextTestDate: null, daysOverdue: null, ...extra };
}
function dueDevice() {
	const { daysOverdue: _, ...rest } = device({});
	return rest;
}
function result() {
	return { id: 9, status: 'failed', passed: false, testDate: '2026-01-05', syncedTime: null, projectId: null, testSequence: 'VDE', tester: null };
}

describe('EventBridge Schema Registry', () => {
	it('the stack has a registry of its own and one OpenApi3 schema per detail type, named source@DetailType', () => {
		const [[registryId]] = ofType('AWS::EventSchemas::Registry');
		expect(ofType('AWS::EventSchemas::Registry')).toHaveLength(1);
		const schemas = ofType('AWS::EventSchemas::Schema');
		expect(schemas.map(([, s]) => s.Properties.SchemaName).sort()).toEqual(Object.values(DETAIL_TYPES).map((t) => schemaName(t)).sort());
		expect(schemaName(DETAIL_TYPES.deviceDueSoon)).toBe('test-equipment-cloud@DeviceDueSoon');
		for (const [, s] of schemas) {
			expect(s.Properties.Type).toBe('OpenApi3');
			expect(s.Properties.RegistryName).toEqual({ 'Fn::GetAtt': [registryId, 'RegistryName'] });
			const doc = JSON.parse(s.Properties.Content as string);
			expect(doc.openapi).toBe('3.0.0');
			const envelope = doc.components.schemas.AWSEvent;
			expect(envelope['x-amazon-events-source']).toBe('test-equipment-cloud');
			const type = envelope['x-amazon-events-detail-type'] as DetailType;
			expect(envelope.properties.detail.$ref).toBe(`#/components/schemas/${bindingName(type)}`);
			// What OpenAPI 3.0 does not have is gone.
			expect(s.Properties.Content).not.toMatch(/"\$schema"|"const"|"type":"null"|"\$defs"/);
		}
		expect((basic.json.Outputs as Record<string, { Value: unknown }>).SchemaRegistryName.Value).toEqual({ 'Fn::GetAtt': [registryId, 'RegistryName'] });
	});

	it('the converted schemas accept the events the pollers emit and refuse broken ones', () => {
		const ajv = new Ajv({ strict: false, allErrors: true });
		for (const [type, schema] of committedSchemas()) {
			const doc = openApiDocument(type, schema) as Json;
			const validate = ajv.compile({ ...doc.components.schemas[bindingName(type)], components: doc.components });
			const event = makeEvent(type, 'sandbox', `key-${type}`, SAMPLES[type], Date.now());
			expect(validate(event.detail), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
			const broken = JSON.parse(JSON.stringify(event.detail));
			broken.metadata.version = '2';
			expect(validate(broken), type).toBe(false);
		}
	});

	it('conversion: nullable, const, exclusive bounds', () => {
		expect(toOpenApiSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({ type: 'string', nullable: true });
		expect(toOpenApiSchema({ type: ['number', 'null'] })).toEqual({ type: 'number', nullable: true });
		expect(toOpenApiSchema({ type: 'string', const: '1' })).toEqual({ type: 'string', enum: ['1'] });
		expect(toOpenApiSchema({ type: 'integer', exclusiveMinimum: 0 })).toEqual({ type: 'integer', minimum: 1 });
		expect(toOpenApiSchema({ type: 'number', exclusiveMinimum: 0 })).toEqual({ type: 'number', minimum: 0, exclusiveMinimum: true });
	});
});
