// The physical limit of this stack: node:http and better-sqlite3 prepared statements, no
// framework and no library, doing the same work (key check against the one key held in memory,
// validation, the same SQL, headers).
import BetterSqlite3 from 'better-sqlite3';
import { type BarePet, serveBare } from './bare-http.js';
import { databaseFile } from './ready.js';

const sqlite = new BetterSqlite3(databaseFile());
sqlite.pragma('journal_mode = WAL');
sqlite.pragma('synchronous = NORMAL');

const columns = 'id, name, category_id as categoryId, status';
const listAll = sqlite.prepare<[number, number], BarePet>(`select ${columns} from pets where id > ? order by id limit ?`);
const listByStatus = sqlite.prepare<[string, number, number], BarePet>(`select ${columns} from pets where status = ? and id > ? order by id limit ?`);
const byId = sqlite.prepare<[number], BarePet>(`select ${columns} from pets where id = ?`);
const insert = sqlite.prepare<[string, number, string], BarePet>(`insert into pets (name, category_id, status) values (?, ?, ?) returning ${columns}`);

serveBare({
  page: (afterId, take, status) => (status === null ? listAll.all(afterId, take) : listByStatus.all(status, afterId, take)),
  byId: (id) => byId.get(id),
  insert: (name, categoryId, status) => {
    const pet = insert.get(name, categoryId, status);
    if (!pet) throw new Error('INSERT … RETURNING returned no row');
    return pet;
  },
});
