import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export const createLogger = (level: Config['logLevel']): Logger => pino({ level });
