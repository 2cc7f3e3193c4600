// Every platform area the emulator serves; a new area is one line here (docs/architecture.md,
// "Add a platform API area").
import type { EmulatorArea } from './area';
import { embedArea } from './embed/routes';
import { iapArea } from './iap/routes';
import { loginArea } from './login/routes';
import { messagingArea } from './messaging/routes';
import { missionStickersArea } from './mission-stickers/routes';
import { modulesArea } from './modules/routes';
import { notificationsArea } from './notifications/routes';
import { serviceMessagesArea } from './service-messages/routes';
import { thingsArea } from './things/routes';
import { videoArea } from './video/routes';

export const PLATFORM_AREAS: EmulatorArea[] = [
  thingsArea,
  loginArea,
  embedArea,
  serviceMessagesArea,
  iapArea,
  missionStickersArea,
  messagingArea,
  modulesArea,
  notificationsArea,
  videoArea,
];
