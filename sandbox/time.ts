/** Calendar-day helpers live with the client's filter language; re-exported for sandbox code. */
export * from '../client/dates';
