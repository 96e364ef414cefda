import pg from 'pg'

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/switchboard_bench'

/** The benchmark database's name, checked: it goes into DDL, which takes no parameters. */
export const databaseName = (url: string): string => {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''))
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`the benchmark database name "${name}" must be a plain identifier`)
  return name
}

/** The same server's maintenance database, for CREATE / DROP DATABASE. */
const adminUrl = (url: string): string => {
  const admin = new URL(url)
  admin.pathname = '/postgres'
  return admin.toString()
}

const admin = async (url: string, sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: adminUrl(url), connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** Whether the server answers; the reason when it does not. */
export const pgReachable = async (url: string): Promise<true | string> => {
  try {
    databaseName(url)
    await admin(url, 'SELECT 1')
    return true
  } catch (error) {
    return (error as Error).message
  }
}

/** A fresh, empty database for one run (any leftover from an interrupted run is dropped first). */
export const createDatabase = async (url: string): Promise<void> => {
  const name = databaseName(url)
  await admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin(url, `CREATE DATABASE ${name}`)
}

export const dropDatabase = async (url: string): Promise<void> => {
  await admin(url, `DROP DATABASE IF EXISTS ${databaseName(url)} WITH (FORCE)`)
}
