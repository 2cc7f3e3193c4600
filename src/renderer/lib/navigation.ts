// Where the user is: the page and the product they work on, kept in the URL's hash
// (`#/scenarios?product=3000000001`) so a reload keeps both, Back and Forward move between pages,
// and the same URL works from Electron's file:// and from the bench server (docs/decisions.md,
// "Flows that keep the user"). The product is one selection shared by every page.
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { parseRoute, routeHash, type Route } from './route';

/**
 * The shell's route, read from and written to `location.hash`. Going to a page adds a history
 * entry; choosing a product replaces the current one, so Back returns to the previous page.
 */
export function useHashRoute(fallbackPage: string, knownPage: (page: string) => boolean) {
  const read = useCallback((): Route => {
    const route = parseRoute(window.location.hash, fallbackPage);
    return knownPage(route.page) ? route : { ...route, page: fallbackPage };
  }, [fallbackPage, knownPage]);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, [read]);
  // The address bar is the source of truth: each change starts from what it says now.
  const navigate = useCallback(
    (page: string) => {
      const next = { ...read(), page };
      if (routeHash(next) !== window.location.hash) window.location.hash = routeHash(next);
      setRoute(next);
    },
    [read],
  );
  const selectProduct = useCallback(
    (productId: string | undefined) => {
      const here = read();
      const next = productId ? { ...here, productId } : { page: here.page };
      window.history.replaceState(window.history.state, '', routeHash(next));
      setRoute(next);
    },
    [read],
  );
  return useMemo(() => ({ route, navigate, selectProduct }), [route, navigate, selectProduct]);
}

export type RouteState = ReturnType<typeof useHashRoute>;

export const RouteContext = createContext<RouteState>({
  route: { page: '' },
  navigate: () => {},
  selectProduct: () => {},
});

/** Lets a page send the user to another page (a "Create a product first" link). */
export function useNavigate(): (page: string) => void {
  return useContext(RouteContext).navigate;
}

/** The product chosen on any page, and how to choose another. */
export function useSelectedProduct(): [
  string | undefined,
  (productId: string | undefined) => void,
] {
  const { route, selectProduct } = useContext(RouteContext);
  return [route.productId, selectProduct];
}
