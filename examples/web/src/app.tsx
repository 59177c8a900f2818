import { type AppRouter, petstoreLinks } from '@petstore/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type TRPCClient, createTRPCClient } from '@trpc/client';
import { useState } from 'react';
import { AddPetForm } from './add-pet-form.js';
import { type Connection, KeyForm } from './key-form.js';
import { PetList } from './pet-list.js';
import { TRPCProvider } from './trpc.js';

const queryClient = new QueryClient({
  // The client retries what is worth retrying (network errors, 429, 503); TanStack Query need not.
  defaultOptions: { queries: { retry: false } },
});

export const App = () => {
  const [client, setClient] = useState<TRPCClient<AppRouter>>();
  const [url, setUrl] = useState('');
  const connect = ({ url, apiKey }: Connection) => {
    queryClient.clear();
    setUrl(url);
    // The app's own tRPC client (it is on tRPC already), made of the links the package gives. An
    // updater: the client is a callable proxy, which React would otherwise call as one.
    setClient(() => createTRPCClient<AppRouter>({ links: petstoreLinks({ url, apiKey }) }));
  };
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 720, margin: '2rem auto', padding: '0 1rem' }}>
      <h1>Petstore</h1>
      <KeyForm onConnect={connect} />
      {client && (
        <QueryClientProvider client={queryClient}>
          <TRPCProvider trpcClient={client} queryClient={queryClient}>
            <AddPetForm url={url} />
            <PetList url={url} />
          </TRPCProvider>
        </QueryClientProvider>
      )}
    </main>
  );
};
