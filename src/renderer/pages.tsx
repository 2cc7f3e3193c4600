// Every page of the app, grouped as the sidebar shows them: the bench first, the API consoles
// below it, then the app's own pages. A new console is one line here.
import type { ReactNode } from 'react';
import { AuditLog } from './consoles/audit-log';
import { BleBench } from './consoles/ble-bench';
import { CommonProfile } from './consoles/common-profile';
import { DeviceService } from './consoles/things';
import { EmbeddedApps } from './consoles/embed';
import { InAppPurchase } from './consoles/iap';
import { Login } from './consoles/login';
import { MissionStickers } from './consoles/mission-stickers';
import { ModuleChannels } from './consoles/modules';
import { NotificationMessages } from './consoles/notifications';
import { Provisioning } from './consoles/provisioning';
import { Scenarios } from './consoles/scenarios';
import { ServiceMessages } from './consoles/service-messages';
import { VideoService } from './consoles/video';
import { Emulator } from './pages/Emulator';
import { Line } from './pages/Line';
import { Start } from './pages/Start';
import { Webhooks } from './pages/Webhooks';

const SETTINGS_PAGE = 'settings';
/** The page the app opens on: the bench workflow and where each step stands. */
export const START_PAGE = 'start';

interface PageEntry {
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
