import type { Command } from './command';
import { catalogCommands } from './commands/catalog';
import { demoCommands } from './commands/demo';
import { eventCommands } from './commands/events';
import { identityCommands } from './commands/identity';
import { keyCommands } from './commands/keys';
import { projectCommands } from './commands/projects';
import { railCommands } from './commands/rails';
import { stripeRailCommands } from './commands/railsStripe';
import { symbolicateCommands } from './commands/symbolicate';

/** Every operator command. A capability adds its own file under commands/ and lists it here. */
export const COMMANDS: Command[] = [...projectCommands, ...keyCommands, ...demoCommands, ...symbolicateCommands, ...eventCommands, ...catalogCommands, ...stripeRailCommands, ...railCommands, ...identityCommands];
