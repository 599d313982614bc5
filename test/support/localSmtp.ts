import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server in the test process (smtp-server, no TLS): it accepts every message, with
 * or without plain authentication, and keeps each one raw with its envelope, for a mail client's
 * reading (postal-mime). Point an SMTP client (n8n's Send Email node) at `127.0.0.1:port`.
 */
export interface ReceivedMessage {
	/** The envelope's sender and recipients (RCPT TO), as the client gave them. */
	from: string;
	rcptTo: string[];
	/** The user the client authenticated as, if it did. */
	user?: string;
	raw: Buffer;
}

export interface LocalSmtp {
	port: number;
	received: ReceivedMessage[];
	/** Every received message so far, parsed (in the order received). */
	parsed(): Promise<Array<PostalMime.Email & { envelope: ReceivedMessage }>>;
	stop(): Promise<void>;
}

export async function startSmtp(options: { users?: Record<string, string> } = {}): Promise<LocalSmtp> {
	const received: ReceivedMessage[] = [];
	const users = options.users;
	const server = new SMTPServer({
		secure: false,
		disabledCommands: users ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
		authOptional: !users,
		// Plain authentication without TLS: the connection never leaves the machine.
		allowInsecureAuth: true,
		authMethods: ['PLAIN', 'LOGIN'],
		logger: false,
		// Every size: the compliance report's attachments are not small.
		size: 50 * 1024 * 1024,
		onAuth(auth, _session, callback) {
			if (users && auth.username !== undefined && users[auth.username] === auth.password) return callback(null, { user: auth.username });
			return callback(new Error('Invalid username or password'));
		},
		onData(stream, session, callback) {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('end', () => {
				received.push({
					from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
					rcptTo: session.envelope.rcptTo.map((r) => r.address),
					...(typeof session.user === 'string' ? { user: session.user } : {}),
					raw: Buffer.concat(chunks),
				});
				callback();
			});
		},
	});
	const port = await new Promise<number>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
	});
	return {
		port,
		received,
		async parsed() {
			const out = [];
			for (const m of received) out.push({ ...(await PostalMime.parse(m.raw)), envelope: m });
			return out;
		},
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
