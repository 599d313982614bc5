import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE } from './metricNames';

/**
 * Logger, Metrics and Tracer for every handler, configured once. The service name comes from
 * POWERTOOLS_SERVICE_NAME (set per function by the stack); the namespace is the project's.
 * Tracer is active only inside Lambda; it records the AWS SDK clients passed to
 * `captureAWSv3Client` and the HTTP requests to the service (undici) on its own.
 */
const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'test-equipment-cloud';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });

/**
 * The Tracer is built when the first invocation begins, not while the module loads: it loads the
 * X-Ray SDK (with cls-hooked and semver), the largest part of a function's init (bench/bundles.ts).
 * It is ready before the handler's code runs, so it still patches the HTTP modules and subscribes
 * to undici's diagnostics channels before the first request.
 */
const tracerModule = () => import('@aws-lambda-powertools/tracer');
type Tracer = InstanceType<Awaited<ReturnType<typeof tracerModule>>['Tracer']>;
let tracing: Promise<Tracer> | undefined;
export function loadTracer(): Promise<Tracer> {
	tracing ??= tracerModule().then(({ Tracer }) => new Tracer({ serviceName }));
	return tracing;
}

/** An AWS SDK v3 client recorded by the Tracer (a subsegment per call when tracing is on). */
export async function captureAWSv3Client<T>(client: T): Promise<T> {
	return (await loadTracer()).captureAWSv3Client(client);
}

/**
 * Wraps a handler: request id and function context on every log line, metrics flushed after
 * each invocation (also when it throws), the cold start counted, and an X-Ray subsegment around
 * it. Powertools' manual pattern: what its middy middlewares do (@middy/core 6 is ESM-only, which
 * this CommonJS package cannot require under TypeScript's node16 module setting).
 */
export function powertoolsHandler<E, R>(fn: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
	return async (event, context) => {
		logger.addContext(context);
		metrics.captureColdStartMetric();
		const tracer = await loadTracer();
		const parent = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
		const segment = parent?.addNewSubsegment(`## ${process.env._HANDLER ?? 'handler'}`);
		if (segment) {
			tracer.setSegment(segment);
			tracer.annotateColdStart();
			tracer.addServiceNameAnnotation();
		}
		try {
			return await fn(event, context);
		} catch (error) {
			if (segment) tracer.addErrorAsMetadata(error as Error);
			throw error;
		} finally {
			if (segment && parent) {
				segment.close();
				tracer.setSegment(parent);
			}
			metrics.publishStoredMetrics();
			logger.resetKeys();
		}
	};
}
