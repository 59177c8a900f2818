import type { AppRouter } from '@petstore/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';

/** Query and mutation options for every procedure, typed from the router the client ships. */
export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();
