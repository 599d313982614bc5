import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** n8n-core reads these before building any service; without them it writes to $HOME and logs. */
export default function setup(): void {
	process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'tec-n8n-'));
	process.env.N8N_LOG_LEVEL ??= 'silent';
}
