import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * The address a request came from. Behind a load balancer every connection comes from the proxy,
 * so `X-Forwarded-For` is believed only for hops through the proxies `config.trustProxy` names (addresses
 * or CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`); anyone else could write that header.
 */
export const clientAddressResolver = (trustedProxies: readonly string[]) => {
  if (trustedProxies.length === 0) return (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown';
  const trust = proxyAddr.compile([...trustedProxies]);
  return (req: IncomingMessage) => proxyAddr(req, trust);
};

/** Whether a peer address is one of the proxies `config.trustProxy` names. */
export const trustedProxyTest = (trustedProxies: readonly string[]): ((address: string) => boolean) => {
  if (trustedProxies.length === 0) return () => false;
  const trust = proxyAddr.compile([...trustedProxies]);
  return (address) => trust(address, 0);
};
