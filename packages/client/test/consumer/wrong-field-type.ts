// Must not compile: categoryId is a number.
import { createPetstoreClient } from '@petstore/client';

await createPetstoreClient({ url: 'http://127.0.0.1:3000', apiKey: 'pst_x' }).createPet.mutate({ name: 'Rex', categoryId: 'one' });
