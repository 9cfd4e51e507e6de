// Reads the Parquet file tabnorm writes of the contacts sample with DuckDB,
// another engine than the one that wrote it, and checks its column types,
// row count and the values a wrong type would change.
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
const want = {
  id: 'BIGINT',
  big: 'DECIMAL(38,0)',
  price: 'DOUBLE',
  exact: 'DECIMAL(38,12)',
  born: 'DATE',
  seen: 'TIMESTAMP WITH TIME ZONE',
  active: 'BOOLEAN',
  name: 'VARCHAR',
};
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
const quoted = `'${file.replaceAll("'", "''")}'`;
const failures = [];
const columns = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quoted})`)).getRowObjects();
const got = Object.fromEntries(columns.map((c) => [c.column_name, c.column_type]));
if (JSON.stringify(Object.keys(got)) !== JSON.stringify(Object.keys(want))) failures.push(`columns ${Object.keys(got)}`);
for (const [name, type] of Object.entries(want)) {
  if (got[name] !== type) failures.push(`${name}: ${got[name]}, want ${type}`);
}
const count = (await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet(${quoted})`)).getRowObjects()[0].n;
if (count !== 3) failures.push(`${count} rows, want 3`);
const first = (await conn.runAndReadAll(`SELECT big::VARCHAR AS big, exact::VARCHAR AS exact, born::VARCHAR AS born,
  strftime(seen, '%Y-%m-%d %H:%M:%S') AS seen, active, name FROM read_parquet(${quoted}) WHERE id = 1`)).getRowObjects()[0];
const wantFirst = { big: '12345678901234567890', exact: '12345678.123456789012', born: '2024-01-31', seen: '2024-02-01 08:30:00', active: true, name: 'Ann' };
for (const [k, v] of Object.entries(wantFirst)) {
  if (first[k] !== v) failures.push(`row 1 ${k}: ${first[k]}, want ${v}`);
}
if (failures.length) {
  console.error(`duckdb: ${file}:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`duckdb: the Parquet file reads back with its ${Object.keys(want).length} column types and ${count} rows`);
