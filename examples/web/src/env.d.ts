interface ImportMetaEnv {
  /** The service address the key form starts with (default http://127.0.0.1:3000). */
  readonly VITE_PETSTORE_URL?: string;
}
