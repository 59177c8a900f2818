// Lists, creates and fetches animals through the typed client.
//   PETSTORE_URL=http://127.0.0.1:3000 PETSTORE_API_KEY=pst_… pnpm --filter @petstore/client example
import { createPetstoreClient, isPetstoreError } from '../src/index.js';

const petstore = createPetstoreClient({
  url: process.env.PETSTORE_URL ?? 'http://127.0.0.1:3000',
  apiKey: process.env.PETSTORE_API_KEY ?? '',
});

try {
  const rex = await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 });
  console.log('created', rex);
  console.log('fetched', await petstore.getPet.query({ petId: rex.id }));
  console.log('available', (await petstore.listPets.query({ status: 'available', limit: 5 })).items);
} catch (error) {
  if (!isPetstoreError(error)) throw error;
  console.error(`${String(error.data?.code)}: ${error.message}`);
  process.exitCode = 1;
}
