// A small typed router: `/a/:b/c` patterns, decoded path parameters, 404 and 405 answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROUTES, type RouteName } from '../../core/protocol/routes';
import { HttpError } from './errors';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
}

type Handler = (ctx: RequestContext) => Promise<void> | void;

interface Route {
  method: string;
  pattern: string;
  parts: string[];
  handler: Handler;
}

export interface Router {
  add(method: string, pattern: string, handler: Handler): Router;
  /** A route of the protocol's table (core/protocol/routes.ts), by name. */
  serve(route: RouteName, handler: Handler): Router;
  /** What is registered, in order: `METHOD /pattern`. */
  list(): string[];
  /** The handler and parameters for a request; throws HttpError 404/405/400. */
  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> };
}

function splitPath(pathname: string): string[] {
  const parts = pathname.split('/').slice(1);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    throw new HttpError(400, `Malformed URL path: ${pathname}`);
  }
}

export function createRouter(): Router {
  const table: Route[] = [];
  const router: Router = {
    add(method, pattern, handler) {
      table.push({ method, pattern, parts: pattern.split('/').slice(1), handler });
      return router;
    },
    serve(route, handler) {
      return router.add(ROUTES[route].method, ROUTES[route].pattern, handler);
    },
    list() {
      return table.map((r) => `${r.method} ${r.pattern}`);
    },
    match(method, pathname) {
      const segs = splitPath(pathname);
      const allowed = new Set<string>();
      for (const route of table) {
        if (route.parts.length !== segs.length) continue;
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < segs.length && ok; i++) {
          const p = route.parts[i] as string;
          const s = segs[i] as string;
          if (p.startsWith(':')) {
            if (s === '') ok = false;
            else params[p.slice(1)] = s;
          } else if (p !== s) ok = false;
        }
        if (!ok) continue;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
          return { handler: route.handler, params };
        allowed.add(route.method);
      }
      if (allowed.size)
        throw new HttpError(405, `Method ${method} not allowed for ${pathname}`, { Allow: [...allowed].join(', ') });
      throw new HttpError(404, 'Not Found');
    },
  };
  return router;
}
