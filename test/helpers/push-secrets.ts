import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { SqliteDatabase as Database } from '../../src/store/sqlite/driver.ts'
import { rpc } from '../a2a/helpers.ts'

/** Every stored push target of a SQLite database (configs and outbox rows), as the file holds them. */
export const rawTargets = (filename: string): string => {
  const db = new Database(filename, { readonly: true })
  try {
    const rows = [
      ...db.prepare('SELECT target FROM push_configs').all(),
      ...db.prepare('SELECT target FROM deliveries').all(),
    ] as { target: string }[]
    return rows.map((row) => row.target).join('\n')
  } finally {
    db.close()
  }
}

/** The SQLite database of a server's data directory. */
export const databaseIn = (dataDir: string): string => join(dataDir, 'switchboard.db')

/** An A2A SendMessage to the python-script-generator with a push config carrying credentials. */
export const sendWithPush = (base: string, push: { url: string; token: string; credentials: string }) =>
  rpc(base, 'SendMessage', {
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: { topic: 'x', filename: 'x.py' } }],
    },
    configuration: {
      taskPushNotificationConfig: {
        url: push.url,
        token: push.token,
        authentication: { scheme: 'Bearer', credentials: push.credentials },
      },
    },
  })
