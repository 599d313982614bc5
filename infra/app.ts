import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { ConfigError, configFromContext } from './config';
import { TestEquipmentCloudAlerts } from './stack';

/**
 * The CDK app: `npx cdk deploy -c baseUrl=https://... -c alertEmails=ops@example.com` (see
 * docs/aws-deployment.md, "Deploy"). Environment-agnostic: the account and region come from the credentials
 * used to deploy. cdk-nag's AWS Solutions and Serverless checks run on every synth.
 */
const app = new App();
try {
	const config = configFromContext((key) => app.node.tryGetContext(key));
	new TestEquipmentCloudAlerts(app, 'TestEquipmentCloudAlerts', { config });
} catch (error) {
	if (error instanceof ConfigError) {
		process.stderr.write(`${error.message}\n`);
		process.exit(1);
	}
	throw error;
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
