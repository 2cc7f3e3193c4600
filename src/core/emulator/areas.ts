// Every seed area the emulator serves; a new area is one line here.
import type { EmulatorArea } from './area';
import { loginArea } from '../platform/login/emulator';
import { thingsArea } from '../platform/things/emulator';

export const PLATFORM_AREAS: EmulatorArea[] = [thingsArea, loginArea];
