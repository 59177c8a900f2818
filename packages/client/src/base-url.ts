/**
 * The address of an interface (`/trpc`, `/v1`) under the service's base address, keeping the base's
 * path with or without its trailing slash: `http://host/petstore/` and `http://host/petstore` both
 * give `http://host/petstore/trpc`, as a service behind an ingress path or a gateway's stage is
 * reached. `new URL('/trpc', base)` would drop that path.
 */
export const underBase = (base: string | URL, prefix: string): string => {
  const url = new URL(base);
  if (url.search !== '' || url.hash !== '') throw new TypeError(`the service's base address takes no query or fragment: ${url.href}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${prefix}`;
  return url.href;
};
