// Every seed area the emulator serves; a new area is one line here.
import type { EmulatorArea } from './area';
import { embedArea } from '../platform/embed/emulator';
import { iapArea } from '../platform/iap/emulator';
import { loginArea } from '../platform/login/emulator';
import { serviceMessagesArea } from '../platform/service-messages/emulator';
import { thingsArea } from '../platform/things/emulator';

export const PLATFORM_AREAS: EmulatorArea[] = [
  thingsArea,
  loginArea,
  embedArea,
  serviceMessagesArea,
  iapArea,
];
