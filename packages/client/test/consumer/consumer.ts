// An app outside the workspace: it sees only what the packed @petstore/client ships.
import { type Pet, createPetstoreClient, createPetstoreRestClient, isPetstoreError } from '@petstore/client';

export const run = async (url: string, apiKey: string) => {
  const petstore = createPetstoreClient({ url, apiKey });
  const rex: Pet = await petstore.createPet.mutate({ name: 'Packed', categoryId: 7, status: 'pending' });
  const fetched: Pet = await petstore.getPet.query({ petId: rex.id });
  const page = await petstore.listPets.query({ status: 'pending', limit: 10 });
  const next: string | null = page.nextCursor;
  const missing = await petstore.getPet.query({ petId: 999_999 }).then(
    () => 'found',
    (error: unknown) => (isPetstoreError(error) ? error.data?.code : 'other'),
  );
  const rest = createPetstoreRestClient({ url, apiKey });
  const { data } = await rest.GET('/pets/{petId}', { params: { path: { petId: rex.id } } });
  return { rex, fetched, listed: page.items.map((pet) => pet.id), next, missing, restName: data?.name };
};
