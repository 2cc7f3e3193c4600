// Lets a page send the user to another page (a "Create a product first" link), without
// threading the shell's page state through every component.
import { createContext, useContext } from 'react';

export const NavigateContext = createContext<(page: string) => void>(() => {});

export function useNavigate(): (page: string) => void {
  return useContext(NavigateContext);
}
