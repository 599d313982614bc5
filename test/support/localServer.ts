import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
	url: string;
	port: number;
	/** Closes the server and any connection still open. */
	stop(): Promise<void>;
}

/**
 * An HTTP server on a free port of 127.0.0.1 that hands every request to `onRequest` once its
 * whole body has arrived: the start shared by the local stand-ins for AWS endpoints and fronts.
 */
export async function serveLocally(onRequest: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void): Promise<LocalServer> {
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => onRequest(req, Buffer.concat(chunks), res));
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		stop: () =>
			new Promise((r) => {
				server.closeAllConnections();
				server.close(() => r());
			}),
	};
}
