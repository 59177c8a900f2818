import type { PetStatus } from '@petstore/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useState } from 'react';
import { CallError } from './call-error.js';
import { useTRPC } from './trpc.js';

/** Adds an animal; the server's validation message, when it refuses one, is shown as it is. */
export const AddPetForm = ({ url }: { url: string }) => {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [categoryId, setCategoryId] = useState('1');
  const [status, setStatus] = useState<PetStatus>('available');
  const create = useMutation(
    trpc.createPet.mutationOptions({
      onSuccess: async () => {
        setName('');
        await queryClient.invalidateQueries({ queryKey: trpc.listPets.pathKey() });
      },
    }),
  );
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    create.mutate({ name, categoryId: Number(categoryId), status });
  };
  return (
    <form onSubmit={submit} style={{ display: 'flex', gap: '0.5rem', flexWrap: 'wrap', marginTop: '1rem' }}>
      <label>
        Name <input name="name" value={name} onChange={(event) => { setName(event.target.value); }} />
      </label>
      <label>
        Category <input name="categoryId" type="number" value={categoryId} onChange={(event) => { setCategoryId(event.target.value); }} />
      </label>
      <label>
        Status{' '}
        <select name="newStatus" value={status} onChange={(event) => { setStatus(event.target.value as PetStatus); }}>
          <option>available</option>
          <option>pending</option>
          <option>sold</option>
        </select>
      </label>
      <button type="submit" disabled={create.isPending}>
        Add
      </button>
      {create.isError && <CallError error={create.error} url={url} />}
    </form>
  );
};
