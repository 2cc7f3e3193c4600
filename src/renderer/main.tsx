// Entry point: connect to the app (Electron preload or bench server) and render the shell.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { buildApi } from '../core/app/api';
import { App } from './App';
import { ApiContext } from './lib/api-context';
import { connectBridge } from './transport';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <ApiContext value={buildApi(connectBridge())}>
      <App />
    </ApiContext>
  </StrictMode>,
);
