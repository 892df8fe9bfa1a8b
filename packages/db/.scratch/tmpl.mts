import { createPglite } from "../src/pglite.ts";
import { migrate } from "../src/migrate.ts";
import { pgliteSession } from "../src/sql-session.ts";
let t = performance.now(); const lap = (m: string) => { const n = performance.now(); console.log(m, Math.round(n - t)); t = n; };
const db = await createPglite(); lap("initdb");
await migrate(pgliteSession(db)); lap("migrate");
const dump = await db.dumpDataDir("none"); lap(`dump ${dump.size}`);
const dumpGz = await db.dumpDataDir("gzip"); lap(`dump gzip ${dumpGz.size}`);
const c = await db.clone(); lap("clone"); await c.close();
await db.close(); lap("close");
for (let i = 0; i < 3; i++) { const d2 = await createPglite({ loadDataDir: dump }); lap("load"); await d2.query("select 1"); lap("q"); await d2.close(); lap("close2"); }
const d3 = await createPglite({ loadDataDir: dumpGz }); lap("load gz"); await d3.close();
