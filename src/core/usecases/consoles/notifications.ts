// Notification messages: hashing (the same code the emulator uses), sends and counts on the
// active environment, and phone users on the embedded emulator.
import { NotificationsClient } from '../../platform/notifications/client';
import { hashPhoneNumber, PhoneNumberError } from '../../platform/notifications/phone';
import {
  notificationStateSchema,
  phoneUserSchema,
  type FlexibleBody,
  type NotificationKind,
  type phoneUserInputSchema,
  type TemplateBody,
} from '../../platform/notifications/schema';
import type { z } from 'zod';
import { SetupError } from '../errors';
import { areaAdmin, type ConsoleSetup } from './console-setup';

export class NotificationsConsole {
  constructor(private readonly setup: ConsoleSetup) {}

  private async client() {
    return new NotificationsClient(await this.setup.envs.activeTarget(), this.setup.http);
  }

  async hashPhoneNumber(phoneNumber: string, defaultCountry?: string) {
    try {
      return await hashPhoneNumber(phoneNumber, defaultCountry);
    } catch (err) {
      if (err instanceof PhoneNumberError) throw new SetupError('phoneNumber', err.message);
      throw err;
    }
  }

  async sendTemplate(body: TemplateBody, deliveryTag: string | undefined): Promise<void> {
    await (await this.client()).sendTemplate(body, deliveryTag || undefined);
  }

  async sendFlexible(body: FlexibleBody, deliveryTag: string | undefined): Promise<void> {
    await (await this.client()).sendFlexible(body, deliveryTag || undefined);
  }

  async count(kind: NotificationKind, date: string) {
    return (await this.client()).count(kind, date);
  }

  emulatorState() {
    return areaAdmin(this.setup, 'notifications').request('GET', '/state', {
      schema: notificationStateSchema,
    });
  }

  addPhoneUser(input: z.output<typeof phoneUserInputSchema>) {
    return areaAdmin(this.setup, 'notifications').request('PUT', '/users', {
      body: input,
      schema: phoneUserSchema,
    });
  }
}
