// The renderer's Content-Security-Policy, defined once for everywhere it is enforced: the
// Electron session's response headers (src/main/window.ts), a <meta> in the built index.html
// (which holds for a file:// page whatever its headers), and the bench server's responses.

export interface PolicyOptions {
  /** The vite dev server while developing; unset for a built renderer. */
  devOrigin?: string;
  /** The <meta> form: a meta element cannot carry `frame-ancestors`, so it is left out. */
  meta?: boolean;
}

export function contentSecurityPolicy(options: PolicyOptions = {}): string {
  const { devOrigin, meta = false } = options;
  const devWs = devOrigin?.replace(/^http/, 'ws');
  // In dev, @vitejs/plugin-react injects an inline module script (the fast-refresh preamble) and
  // vite's client opens a WebSocket to the dev server; a built app needs neither.
  const script = devOrigin ? `'self' 'unsafe-inline' ${devOrigin}` : `'self'`;
  const connect = ["'self'", 'ws://127.0.0.1:*', 'http://127.0.0.1:*', devOrigin, devWs]
    .filter(Boolean)
    .join(' ');
  return [
    "default-src 'self'",
    `script-src ${script}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    ...(meta ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
}

/** The built renderer's policy, as a response header. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/**
 * A vite plugin (typed structurally, so core needs no vite) that puts the built policy first in
 * index.html's <head>, before any script. Build only: the dev server's page needs the dev policy.
 */
export function cspMetaPlugin() {
  return {
    name: 'devicebench-csp-meta',
    apply: 'build' as const,
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: {
          'http-equiv': 'Content-Security-Policy',
          content: contentSecurityPolicy({ meta: true }),
        },
        injectTo: 'head-prepend' as const,
      },
    ],
  };
}
