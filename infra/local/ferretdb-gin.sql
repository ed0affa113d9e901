-- GIN companions for FerretDB 1.24's indexes on PostgreSQL (ADR 15, "What FerretDB does with it").
--
-- FerretDB 1.24 turns a MongoDB index {f: 1} into a B-tree on (_jsonb -> 'f'), but pushes an equality down as
-- `_jsonb -> 'f' @> '<value>'`, which a B-tree cannot serve: every find is a sequential scan of the collection's
-- table. A GIN index on the same expression can serve `@>` (also "array contains element", which multikey fields
-- like `buckets` need). This file gives every B-tree FerretDB creates on `_jsonb -> '<field>'` one single-column
-- GIN index per field, now (for the indexes that exist) and from now on (an event trigger on CREATE INDEX).
-- PostgreSQL combines them with a BitmapAnd, or uses the selective one alone once ANALYZE has seen the table. Idempotent: run it as often as you like (ferretdb.sh start does).
--
-- Production runs MongoDB, where none of this applies. A self-hosted FerretDB 1.x on PostgreSQL can apply this
-- file with psql as a superuser of FerretDB's database.

CREATE OR REPLACE FUNCTION formgate_gin_companions(btree regclass) RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
  idx record;
  k integer;
  expr text;
  field text;
  made integer := 0;
BEGIN
  SELECT i.indrelid::regclass AS tbl, c.relname AS tblname, n.nspname AS nsp, i.indnatts AS natts, am.amname AS am
    INTO idx
    FROM pg_index i
    JOIN pg_class ic ON ic.oid = i.indexrelid
    JOIN pg_am am ON am.oid = ic.relam
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE i.indexrelid = btree;
  IF NOT FOUND OR idx.am <> 'btree' OR idx.tblname LIKE '\_ferretdb\_%' THEN
    RETURN 0;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = idx.tbl AND attname = '_jsonb' AND NOT attisdropped) THEN
    RETURN 0;
  END IF;
  FOR k IN 1..idx.natts LOOP
    expr := pg_get_indexdef(btree, k, true);
    field := substring(expr FROM '^\(?_jsonb -> ''([^'']+)''::text\)?$');
    CONTINUE WHEN field IS NULL;
    -- <table>_<md5 of the field>_gin: unique per (table, field), within PostgreSQL's 63 bytes.
    -- fastupdate off: no pending list, which every read would otherwise scan whole until a vacuum merges it.
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin ((_jsonb -> %L)) WITH (fastupdate = off)',
                   left(idx.tblname, 40) || '_' || left(md5(field), 12) || '_gin', idx.nsp, idx.tblname, field);
    made := made + 1;
  END LOOP;
  RETURN made;
END
$fn$;

CREATE OR REPLACE FUNCTION formgate_gin_on_create_index() RETURNS event_trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM formgate_gin_companions(cmd.objid::regclass);
  END LOOP;
END
$fn$;

DROP EVENT TRIGGER IF EXISTS formgate_gin_on_create_index;
CREATE EVENT TRIGGER formgate_gin_on_create_index ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION formgate_gin_on_create_index();

-- The indexes that exist already.
SELECT count(*) AS btrees, coalesce(sum(formgate_gin_companions(i.indexrelid)), 0) AS gin_fields
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
 WHERE am.amname = 'btree';
