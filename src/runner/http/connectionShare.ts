// Open connections are capped (server.maxConnections), and strangers cannot take them all: a connection is
// untrusted until one of its requests passes the token (or, without a token, the local-caller checks). Untrusted
// connections may hold the cap less a reserved share; one more makes the oldest untrusted connection go. A token
// holder's new connection is accepted however many slow heads hold the rest (the oldest of those goes for it),
// and once its request is through it stays whatever strangers do.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionShare {
  /** The socket's request passed the token: it no longer counts against the untrusted share. */
  trust(socket: Socket): void;
}

/** The part of the cap kept for trusted connections: a quarter, at least one. */
function reservedConnections(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 4));
}

export function shareConnections(server: Server, maxConnections: number, log: (line: string) => void): ConnectionShare {
  server.maxConnections = maxConnections;
  const untrustedShare = Math.max(1, maxConnections - reservedConnections(maxConnections));
  // insertion order = age: the first key is the oldest
  const untrusted = new Set<Socket>();
  let closedSinceLog = 0;
  let lastLog = 0;
  server.on('connection', (socket: Socket) => {
    untrusted.add(socket);
    socket.once('close', () => untrusted.delete(socket));
    if (untrusted.size <= untrustedShare) return;
    const oldest = untrusted.values().next().value as Socket;
    untrusted.delete(oldest);
    oldest.destroy();
    closedSinceLog += 1;
    const now = Date.now();
    if (now - lastLog >= 10_000) {
      log(
        `warning: ${untrustedShare} connections without a valid token are open; closed the oldest (${closedSinceLog} since the last warning)`,
      );
      lastLog = now;
      closedSinceLog = 0;
    }
  });
  return {
    trust(socket) {
      untrusted.delete(socket);
    },
  };
}
