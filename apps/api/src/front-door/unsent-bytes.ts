import type { Socket } from 'node:net';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import type { UnsentBytes } from '../http/request-context.js';

/**
 * An answer of at most this many characters is always written: a few of them are what every
 * connection may leave in its socket's own buffer (16 KiB), and a create's answer is one, so
 * nothing a client changed goes unacknowledged. Larger answers are weighed against the budget.
 */
export const ALWAYS_WRITTEN_CHARACTERS = 16 * 1024;

/** What a client refused for the budget is told to wait: answers held are taken, or closed, within seconds. */
export const UNSENT_RETRY_AFTER_SECONDS = 1;

/** The refusal of an answer the budget has no room for. */
export const tooMuchHeld = () =>
  new TRPCError({
    code: 'SERVICE_UNAVAILABLE',
    message: `The service holds as many answers as it may for clients that have not read theirs; try again in ${UNSENT_RETRY_AFTER_SECONDS} second.`,
  });

/** The part of the budget one client address may hold: a few clients that never read cannot take it all. */
const ADDRESS_SHARE_OF_UNSENT = 1 / 4;

/**
 * Bounds what clients that do not read can make the process hold (OWASP API4:2023): one answer per
 * connection (connections.ts' `oneAtATime`), and all of them within `maxBytes`, of which one address holds at most
 * ADDRESS_SHARE_OF_UNSENT. A refusal is logged once, until the held bytes fall back to half the budget.
 */
export const createUnsentBytes = (maxBytes: number, logger: Logger): UnsentBytes => {
  const perAddress = new Map<string, number>();
  const addressShare = Math.floor(maxBytes * ADDRESS_SHARE_OF_UNSENT);
  const holding = new WeakSet<Socket>();
  let refusing = false;
  const held = {
    bytes: 0,
    fits: (bytes: number, address: string) => {
      const fits = held.bytes + bytes <= maxBytes && (perAddress.get(address) ?? 0) + bytes <= addressShare;
      if (!fits && !refusing) {
        refusing = true;
        logger.warn({ heldBytes: held.bytes, answerBytes: bytes, maxUnsentBytes: maxBytes }, 'answers not yet taken by their clients fill the budget: refusing large answers with 503');
      }
      return fits;
    },
    hold: (socket: Socket, address: string) => {
      // Only a write the socket refused is followed by 'drain'; what a socket takes at once is its own buffer's.
      if (!socket.writableNeedDrain || holding.has(socket)) return;
      holding.add(socket);
      const bytes = socket.writableLength;
      held.bytes += bytes;
      perAddress.set(address, (perAddress.get(address) ?? 0) + bytes);
      const release = () => {
        socket.off('drain', release).off('close', release);
        holding.delete(socket);
        held.bytes -= bytes;
        const left = (perAddress.get(address) ?? bytes) - bytes;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
        if (refusing && held.bytes <= maxBytes / 2) {
          refusing = false;
          logger.warn({ heldBytes: held.bytes, maxUnsentBytes: maxBytes }, 'answers not yet taken are back under half the budget: writing large answers again');
        }
      };
      socket.once('drain', release).once('close', release);
    },
  };
  return held;
};
