// Every page of the app, grouped as the sidebar shows them: the bench first, the API consoles
// below it, then the app's own pages. A page without a component is listed, disabled, so users
// see where things will go; a new console is one line here.
import type { ReactNode } from 'react';
import { AuditLog } from './consoles/AuditLog';
import { BleBench } from './consoles/BleBench';
import { CommonProfile } from './consoles/CommonProfile';
import { DeviceService } from './consoles/DeviceService';
import { EmbeddedApps } from './consoles/EmbeddedApps';
import { InAppPurchase } from './consoles/InAppPurchase';
import { Login } from './consoles/Login';
import { MissionStickers } from './consoles/MissionStickers';
import { ModuleChannels } from './consoles/ModuleChannels';
import { NotificationMessages } from './consoles/NotificationMessages';
import { Provisioning } from './consoles/Provisioning';
import { Scenarios } from './consoles/Scenarios';
import { ServiceMessages } from './consoles/ServiceMessages';
import { VideoService } from './consoles/VideoService';
import { Emulator } from './pages/Emulator';
import { Line } from './pages/Line';
import { Start } from './pages/Start';
import { Webhooks } from './pages/Webhooks';

export const SETTINGS_PAGE = 'settings';
/** The page the app opens on: the bench workflow and where each step stands. */
export const START_PAGE = 'start';

export interface PageEntry {
  id: string;
  label: string;
  /** Pages that take no props; Settings is wired by the shell, which owns what it needs. */
  render?: () => ReactNode;
}

export const PAGE_GROUPS: { title: string; pages: PageEntry[] }[] = [
  {
    title: 'Bench',
    pages: [
      { id: START_PAGE, label: 'Start', render: () => <Start /> },
      { id: 'ble-bench', label: 'BLE bench', render: () => <BleBench /> },
      { id: 'provisioning', label: 'Provisioning', render: () => <Provisioning /> },
      { id: 'scenarios', label: 'Scenarios', render: () => <Scenarios /> },
      { id: 'audit-log', label: 'Audit log', render: () => <AuditLog /> },
    ],
  },
  {
    title: 'API consoles',
    pages: [
      { id: 'device-service', label: 'Device service', render: () => <DeviceService /> },
      { id: 'login', label: 'Login & profile', render: () => <Login /> },
      { id: 'embedded-apps', label: 'Embedded apps', render: () => <EmbeddedApps /> },
      { id: 'common-profile', label: 'Common profile', render: () => <CommonProfile /> },
      { id: 'service-messages', label: 'Service messages', render: () => <ServiceMessages /> },
      { id: 'in-app-purchase', label: 'In-app purchase', render: () => <InAppPurchase /> },
      { id: 'mission-stickers', label: 'Mission stickers', render: () => <MissionStickers /> },
      { id: 'module-channels', label: 'Module channels', render: () => <ModuleChannels /> },
      {
        id: 'notification-messages',
        label: 'Notification messages',
        render: () => <NotificationMessages />,
      },
      { id: 'video-service', label: 'Video service', render: () => <VideoService /> },
    ],
  },
  {
    title: 'App',
    pages: [
      { id: 'line', label: 'Line', render: () => <Line /> },
      { id: 'emulator', label: 'Emulator', render: () => <Emulator /> },
      { id: 'webhooks', label: 'Webhooks', render: () => <Webhooks /> },
      { id: SETTINGS_PAGE, label: 'Settings' },
    ],
  },
];
