import type { SwitchboardOptions } from '../../server/server.ts'
import {
  type FlagSources,
  firstSet,
  readSettingFile,
  type ServeFlagGroup,
  sectionOf,
  stringSetting,
} from './group.ts'

/** `SWITCHBOARD_INSECURE_NO_AUTH`: 1/true or 0/false; anything else is a typo, not a "no". */
const insecureFromEnv = (value: string | undefined): boolean | undefined => {
  if (value === undefined || value === '') return undefined
  if (value === '1' || value === 'true') return true
  if (value === '0' || value === 'false') return false
  throw new Error(`SWITCHBOARD_INSECURE_NO_AUTH must be 1 or 0, got "${value}"`)
}

/**
 * `--tls-cert`, `--tls-key`, `--client-ca`: the server terminates TLS, and with a client CA callers
 * may authenticate by certificate; `--insecure-no-auth` lets a server without authentication
 * bind a non-loopback address (docs/security/tls.md).
 */
export const tlsFlags: ServeFlagGroup = {
  register(command) {
    command
      .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain) (env SWITCHBOARD_TLS_CERT)')
      .option('--tls-key <file>', 'the PEM private key of --tls-cert (env SWITCHBOARD_TLS_KEY)')
      .option(
        '--client-ca <file>',
        'PEM CA whose client certificates authenticate callers (mutual TLS; principal = subject CN) (env SWITCHBOARD_CLIENT_CA)',
      )
      .option(
        '--client-tenant <tenant>',
        'the tenant of callers authenticated by certificate (default "default") (env SWITCHBOARD_CLIENT_TENANT)',
      )
      .option(
        '--insecure-no-auth',
        'allow a non-loopback --host with no authentication: anyone who reaches it sees every task (env SWITCHBOARD_INSECURE_NO_AUTH=1)',
      )
  },

  resolve({ flags, env, file }: FlagSources): Partial<SwitchboardOptions> {
    const section = sectionOf(file, 'tls')
    /** One string setting: `--tls-cert` is `flags.tlsCert`, `SWITCHBOARD_TLS_CERT` and `tls.cert`. */
    const setting = (flag: string, flagKey: string, variable: string, fileKey: string) =>
      stringSetting(`${flag} (tls.${fileKey})`, firstSet(flags[flagKey], env[variable], section[fileKey]))
    const cert = setting('--tls-cert', 'tlsCert', 'SWITCHBOARD_TLS_CERT', 'cert')
    const key = setting('--tls-key', 'tlsKey', 'SWITCHBOARD_TLS_KEY', 'key')
    const clientCa = setting('--client-ca', 'clientCa', 'SWITCHBOARD_CLIENT_CA', 'clientCa')
    const clientTenant = setting(
      '--client-tenant',
      'clientTenant',
      'SWITCHBOARD_CLIENT_TENANT',
      'clientTenant',
    )
    const insecureNoAuth =
      (flags.insecureNoAuth as boolean | undefined) ?? insecureFromEnv(env.SWITCHBOARD_INSECURE_NO_AUTH)
    const options: Partial<SwitchboardOptions> = insecureNoAuth ? { insecureNoAuth } : {}
    if (cert === undefined && key === undefined) {
      if (clientCa !== undefined)
        throw new Error('--client-ca needs --tls-cert and --tls-key: mutual TLS is TLS')
      if (clientTenant !== undefined) throw new Error('--client-tenant needs --client-ca')
      return options
    }
    if (cert === undefined || key === undefined) throw new Error('--tls-cert and --tls-key go together')
    if (clientTenant !== undefined && clientCa === undefined)
      throw new Error('--client-tenant needs --client-ca')
    return {
      ...options,
      tls: {
        cert: readSettingFile('--tls-cert', cert),
        key: readSettingFile('--tls-key', key),
        ...(clientCa !== undefined && { clientCa: readSettingFile('--client-ca', clientCa) }),
        ...(clientTenant !== undefined && { clientTenant }),
      },
    }
  },
}
