import type { Command } from 'commander'
import { positiveInt, urlArg } from './args.ts'
import { EXIT, UsageError } from './exit-codes.ts'
import { Output, table } from './output.ts'

interface AdminFlags {
  server?: string
  token?: string
  json?: boolean
  timeout?: string
}

interface DeliveryView {
  id: string
  task_id: string
  seq: number
  kind: string
  url: string
  event: string
  state: string
  attempts: number
  next_attempt_at: string
  last_error?: string
  delivered_at?: string
}

const STATES = ['pending', 'delivered', 'dead']

/** One call to the server's admin API, with the bearer token when one is given. */
const admin = async (flags: AdminFlags, path: string, method = 'GET'): Promise<unknown> => {
  const server = urlArg(
    flags.server ?? process.env.SWITCHBOARD_SERVER ?? 'http://127.0.0.1:8080',
    '--server',
  ).replace(/\/+$/, '')
  const token = flags.token ?? process.env.SWITCHBOARD_ADMIN_TOKEN
  const timeoutMs = positiveInt(flags.timeout ?? '30000', '--timeout')
  const [{ requestJson }, { fromClawpediaError }, { OriginCredentials }] = await Promise.all([
    import('../client/http.ts'),
    import('../client/errors.ts'),
    import('../client/credentials.ts'),
  ])
  const credentials = new OriginCredentials(server, token ? { credentials: { bearer: token } } : {})
  const answer = await requestJson({ credentials, timeoutMs }, `${server}/admin${path}`, {
    method,
    headers: { accept: 'application/json' },
  })
  // The admin API answers errors in the Clawpedia shape: { error: { code, message } }.
  if (answer.status < 200 || answer.status >= 300)
    throw fromClawpediaError(answer.body, answer.status, answer.headers)
  return answer.body
}

const describe = (d: DeliveryView): string =>
  [
    `delivery ${d.id}  ${d.state}`,
    `  task:     ${d.task_id} (event ${d.seq}: ${d.event})`,
    `  target:   ${d.kind} ${d.url}`,
    `  attempts: ${d.attempts}${d.state === 'pending' ? `, next at ${d.next_attempt_at}` : ''}`,
    ...(d.last_error ? [`  last error: ${d.last_error}`] : []),
    ...(d.delivered_at ? [`  delivered: ${d.delivered_at}`] : []),
  ].join('\n')

const withAdminOptions = (command: Command): Command =>
  command
    .option(
      '--server <url>',
      'the Switchboard server (env SWITCHBOARD_SERVER, default http://127.0.0.1:8080)',
    )
    .option('--token <token>', 'the admin token (env SWITCHBOARD_ADMIN_TOKEN)')
    .option('--json', 'machine-readable output')
    .option('--timeout <ms>', 'per-call timeout in milliseconds', '30000')

/** `deliveries list|show|retry|stats`: the push outbox of a server, through its admin API. */
export const deliveriesCommand = (
  program: Command,
  run: (action: () => Promise<number>) => Promise<void>,
): void => {
  const deliveries = program
    .command('deliveries')
    .description("inspect and retry a server's push notification deliveries (admin API)")

  withAdminOptions(deliveries.command('list').description('list deliveries, newest first'))
    .option('--state <state>', `only deliveries in this state: ${STATES.join(', ')}`)
    .option('--task <id>', 'only deliveries of this task')
    .option('--limit <n>', 'at most this many (1–500)', '50')
    .action((flags: AdminFlags & { state?: string; task?: string; limit: string }) =>
      run(async () => {
        if (flags.state !== undefined && !STATES.includes(flags.state)) {
          throw new UsageError(`--state must be one of ${STATES.join(', ')}`)
        }
        const query = new URLSearchParams({ limit: String(positiveInt(flags.limit, '--limit')) })
        if (flags.state) query.set('state', flags.state)
        if (flags.task) query.set('task_id', flags.task)
        const out = new Output(flags.json === true)
        const { deliveries: list } = (await admin(flags, `/deliveries?${query}`)) as {
          deliveries: DeliveryView[]
        }
        const rows = [
          ['DELIVERY', 'STATE', 'ATTEMPTS', 'TASK', 'EVENT', 'URL'],
          ...list.map((d) => [d.id, d.state, String(d.attempts), d.task_id, `${d.seq}:${d.event}`, d.url]),
        ]
        out.result(list, list.length === 0 ? 'no deliveries' : table(rows))
        return EXIT.OK
      }),
    )

  withAdminOptions(deliveries.command('show').description('show one delivery'))
    .argument('<id>', 'the delivery id')
    .action((id: string, flags: AdminFlags) =>
      run(async () => {
        const delivery = (await admin(flags, `/deliveries/${encodeURIComponent(id)}`)) as DeliveryView
        new Output(flags.json === true).result(delivery, describe(delivery))
        return EXIT.OK
      }),
    )

  withAdminOptions(deliveries.command('retry').description('send a dead delivery again'))
    .argument('<id>', 'the delivery id')
    .action((id: string, flags: AdminFlags) =>
      run(async () => {
        const delivery = (await admin(
          flags,
          `/deliveries/${encodeURIComponent(id)}/retry`,
          'POST',
        )) as DeliveryView
        new Output(flags.json === true).result(delivery, describe(delivery))
        return EXIT.OK
      }),
    )

  withAdminOptions(deliveries.command('stats').description('count deliveries per state')).action(
    (flags: AdminFlags) =>
      run(async () => {
        const { counts } = (await admin(flags, '/deliveries/stats')) as { counts: Record<string, number> }
        new Output(flags.json === true).result(
          counts,
          Object.entries(counts)
            .map(([state, count]) => `${state.padEnd(10)} ${count}`)
            .join('\n'),
        )
        return EXIT.OK
      }),
  )
}
