import type { RestOperation } from './operations.js';

export interface RestRoute {
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  template: string;
  pattern: RegExp;
  /** The operations on this path, by HTTP method. */
  byMethod: ReadonlyMap<string, RestOperation>;
  /** The `Allow` header for this path: its methods, and HEAD wherever GET is. */
  allow: string;
}

export interface RouteMatch {
  route: RestRoute;
  /** Path parameters as sent, percent-decoded; undefined when one cannot be decoded. */
  params: Record<string, string> | undefined;
}

/** `/pets/{petId}` → /^\/pets\/(?<petId>[^/]+)$/ */
const toPattern = (template: string) => {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
      return parameter ? `(?<${parameter}>[^/]+)` : part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
};

/** The route table, compiled once from the procedures' OpenAPI meta. */
export const compileRoutes = (operations: RestOperation[]): RestRoute[] => {
  const byTemplate = new Map<string, Map<string, RestOperation>>();
  for (const operation of operations) {
    const byMethod = byTemplate.get(operation.path) ?? new Map<string, RestOperation>();
    byMethod.set(operation.method, operation);
    byTemplate.set(operation.path, byMethod);
  }
  return [...byTemplate].map(([template, byMethod]) => {
    const methods = [...byMethod.keys()];
    return {
      template,
      pattern: toPattern(template),
      byMethod,
      allow: (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', '),
    };
  });
};

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The route whose template matches the path exactly, with its parameters. */
export const matchRoute = (routes: readonly RestRoute[], path: string): RouteMatch | undefined => {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(match.groups ?? {})) {
      const value = decode(raw);
      if (value === undefined) return { route, params: undefined };
      params[name] = value;
    }
    return { route, params };
  }
  return undefined;
};
