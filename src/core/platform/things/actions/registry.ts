// The action types a scenario set may use, by name: the platform's own, and any registered
// after them. Every reader looks a type up here when it needs it, never keeps its own list.
import type { ActionDescriptor } from './descriptor';
import { gattReadAction } from './gatt-read';
import { gattWriteAction } from './gatt-write';
import { sleepAction } from './sleep';

const registered = new Map<string, ActionDescriptor>();

/** Adds an action type every reader then knows; a name already taken is refused. */
export function registerActionType(descriptor: ActionDescriptor): void {
  if (registered.has(descriptor.type))
    throw new Error(`action type ${descriptor.type} is already registered`);
  registered.set(descriptor.type, descriptor);
}

for (const descriptor of [sleepAction, gattReadAction, gattWriteAction])
  registerActionType(descriptor);

/** A registered action type's name. */
export type ActionType = string;

/** In the order they were registered: the platform's own first. */
export function actionDescriptors(): ActionDescriptor[] {
  return [...registered.values()];
}

export function actionTypes(): ActionType[] {
  return [...registered.keys()];
}

export function actionDescriptor(type: string): ActionDescriptor | undefined {
  return registered.get(type);
}

export function isActionType(value: unknown): value is ActionType {
  return typeof value === 'string' && registered.has(value);
}
