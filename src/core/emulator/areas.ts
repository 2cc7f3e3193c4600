// Every seed area the emulator serves; a new area is one line here.
import type { EmulatorArea } from './area';
import { embedArea } from '../platform/embed/emulator';
import { iapArea } from '../platform/iap/emulator';
import { loginArea } from '../platform/login/emulator';
import { messagingArea } from '../platform/messaging/emulator';
import { missionStickersArea } from '../platform/mission-stickers/emulator';
import { modulesArea } from '../platform/modules/emulator';
import { notificationsArea } from '../platform/notifications/emulator';
import { serviceMessagesArea } from '../platform/service-messages/emulator';
import { thingsArea } from '../platform/things/emulator';
import { videoArea } from '../platform/video/emulator';

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
