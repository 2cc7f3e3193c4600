// Every page of the app, grouped as the sidebar shows them: the bench first, the API consoles
// below it, then the app's own pages. A new console is one line here.
import type { ReactNode } from 'react';
import { AuditLog } from './consoles/audit-log';
import { BleBench } from './consoles/ble-bench';
import { CommonProfile } from './consoles/common-profile';
import { Things } from './consoles/things';
import { Embed } from './consoles/embed';
import { Iap } from './consoles/iap';
import { Login } from './consoles/login';
import { MissionStickers } from './consoles/mission-stickers';
import { Modules } from './consoles/modules';
import { Notifications } from './consoles/notifications';
import { Provisioning } from './consoles/provisioning';
import { Scenarios } from './consoles/scenarios';
import { ServiceMessages } from './consoles/service-messages';
import { Video } from './consoles/video';
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
      { id: 'device-service', label: 'Device service', render: () => <Things /> },
      { id: 'login', label: 'Login & profile', render: () => <Login /> },
      { id: 'embedded-apps', label: 'Embedded apps', render: () => <Embed /> },
      { id: 'common-profile', label: 'Common profile', render: () => <CommonProfile /> },
      { id: 'service-messages', label: 'Service messages', render: () => <ServiceMessages /> },
      { id: 'in-app-purchase', label: 'In-app purchase', render: () => <Iap /> },
      { id: 'mission-stickers', label: 'Mission stickers', render: () => <MissionStickers /> },
      { id: 'module-channels', label: 'Module channels', render: () => <Modules /> },
      {
        id: 'notification-messages',
        label: 'Notification messages',
        render: () => <Notifications />,
      },
      { id: 'video-service', label: 'Video service', render: () => <Video /> },
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
