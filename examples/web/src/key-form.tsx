import { type SubmitEvent, useState } from 'react';

export interface Connection {
  url: string;
  apiKey: string;
}

const DEFAULT_URL = import.meta.env.VITE_PETSTORE_URL ?? 'http://127.0.0.1:3000';

/** The service's address and an API key (`npx pnpm keys create my-app` prints one). */
export const KeyForm = ({ onConnect }: { onConnect: (connection: Connection) => void }) => {
  const [url, setUrl] = useState(DEFAULT_URL);
  const [apiKey, setApiKey] = useState('');
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onConnect({ url, apiKey: apiKey.trim() });
  };
  return (
    <form onSubmit={submit} style={{ display: 'flex', gap: '0.5rem', flexWrap: 'wrap' }}>
      <label>
        Service <input name="url" value={url} onChange={(event) => { setUrl(event.target.value); }} />
      </label>
      <label>
        API key <input name="apiKey" type="password" value={apiKey} onChange={(event) => { setApiKey(event.target.value); }} placeholder="pst_…" required />
      </label>
      <button type="submit">Connect</button>
    </form>
  );
};
