import type { Command } from 'commander';
import type { ComposeSecretsFlags } from './nats-compose.run.js';
import type { NatsConfigFlags } from './nats-config.run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Adds `caesar nats config`: a nats-server config for a set of NKEY identities. */
export function register(program: Command): void {
  const nats = program.command('nats').description('nats-server configuration for CAESAR');
  nats
    .command('config')
    .description(
      'write a complete nats-server config: one least-privilege user per identity, for one server or a cluster',
    )
    .option('--brain <key>', "a brain's public key or seed file (repeatable)", collect, [])
    .option(
      '--worker <tools=key>',
      "a worker host's tools and its public key or seed file, e.g. calculator,web_search=UA… (repeatable)",
      collect,
      [],
    )
    .option('--operator <key>', "an operator's public key or seed file (repeatable)", collect, [])
    .option('--listen <host:port>', 'where clients connect', '0.0.0.0:4222')
    .option('--cluster <name>', 'run as one server of a cluster with this name')
    .option('--cluster-listen <host:port>', 'where the other servers connect', '0.0.0.0:6222')
    .option('--routes <urls>', 'the other servers of the cluster, comma-separated nats-route://…')
    .option(
      '--cluster-secret <file>',
      "with --cluster: the routes' user and password (made when missing; the same file on every server)",
    )
    .option(
      '--leafnodes-listen <host:port>',
      'a hub: where leaf servers of remote sites connect (e.g. 0.0.0.0:7422)',
    )
    .option(
      '--leaf <tools=file>',
      "a hub: a remote site's leaf connection, allowed what a worker of these tools is, with the user and password in file (made when missing), e.g. calculator=pi.leaf (repeatable)",
      collect,
      [],
    )
    .option(
      '--leaf-remote <url>',
      'a leaf server: the hub to connect to, e.g. nats-leaf://hub.lan:7422 (comma-separated: each server of a hub cluster)',
    )
    .option('--leaf-secret <file>', "a leaf server: the secret file the hub's --leaf made")
    .option('--out <file>', 'write here (mode 0600) instead of printing')
    .action(async (flags: NatsConfigFlags) => {
      const { writeNatsConfig } = await import('./nats-config.run.js');
      process.exitCode = await writeNatsConfig(flags);
    });
  nats
    .command('compose-secrets')
    .description(
      "once, for docker-compose.yml: mint an NKEY seed per part (brain, operator, each shipped worker) into secrets/, never replacing one, and write secrets/nats-server.conf and .env (the brain's public key, the containers' uid)",
    )
    .option('--dir <dir>', 'the directory of docker-compose.yml', '.')
    .action(async (flags: ComposeSecretsFlags) => {
      const { writeComposeSecrets } = await import('./nats-compose.run.js');
      process.exitCode = await writeComposeSecrets(flags);
    });
}
