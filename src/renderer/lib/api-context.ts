// Hands the app's API to every component without threading it through props.
import { createContext, useContext } from 'react';
import type { DeviceBenchApi } from '../../core/app/api';

export const ApiContext = createContext<DeviceBenchApi | null>(null);

export function useApi(): DeviceBenchApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi must be used inside <ApiContext value={api}>');
  return api;
}
