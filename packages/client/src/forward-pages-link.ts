import type { TRPCLink } from '@trpc/client';
import type { AppRouter } from './generated/router-types.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * tRPC's infinite queries (`useInfiniteQuery` through @trpc/tanstack-react-query) add
 * `direction: 'forward'` to the input of every page they ask for. The service pages forward
 * only, by `cursor`, and refuses fields it does not know; so the forward direction, which says
 * nothing, is left out. A backward one still reaches the service, which refuses it.
 */
export const forwardPagesLink = (): TRPCLink<AppRouter> => () => ({ op, next }) => {
  if (!isRecord(op.input) || op.input.direction !== 'forward') return next(op);
  const input = { ...op.input };
  delete input.direction;
  return next({ ...op, input });
};
