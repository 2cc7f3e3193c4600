// The route as the URL's hash spells it (`#/scenarios?product=3000000001`); lib/navigation.ts
// keeps it in the address bar. No DOM here, so the form is tested on its own.

export interface Route {
  page: string;
  /** The product chosen on any page; a page showing products starts on it. */
  productId?: string;
}

export function parseRoute(hash: string, fallbackPage: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const page = decodeURIComponent(path) || fallbackPage;
  const productId = new URLSearchParams(query).get('product') || undefined;
  return productId ? { page, productId } : { page };
}

export function routeHash(route: Route): string {
  const query = route.productId ? `?product=${encodeURIComponent(route.productId)}` : '';
  return `#/${encodeURIComponent(route.page)}${query}`;
}
