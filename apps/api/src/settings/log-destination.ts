import type { DestinationStream } from 'pino';
import { PinoPretty } from 'pino-pretty';

/**
 * Where the service's log goes: on a terminal, lines a person reads (pino-pretty: the time, the
 * level, the message and its fields); anywhere else (a pipe, a file, a container's log, a
 * collector), pino's JSON lines as the logger writes them, which `undefined` leaves to it. pino's
 * own habit, and the same redaction either way: pino-pretty formats the lines pino has already made.
 */
export const logDestination = (stdout: { isTTY?: boolean } = process.stdout): DestinationStream | undefined =>
  stdout.isTTY === true ? PinoPretty({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: 1, sync: true }) : undefined;
