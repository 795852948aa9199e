package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.Dialect;

/**
 * The PL/pgSQL of the guard on PostgreSQL ({@link PostgresGuard}): the row function of each mode,
 * the truncate function and the event triggers' function. {@code verify} compares the installed
 * text with these character for character, so any change here makes every installed guard
 * outdated: raise {@link GuardVersion#VERSION} with it.
 */
final class PostgresGuardFunctions {

    /** The names of the guard's functions and triggers in the database. */
    static final String ROW_FUNCTION = "fencing_guard_row";
    static final String EPOCH_FUNCTION = "fencing_guard_epoch";
    static final String TRUNCATE_FUNCTION = "fencing_guard_truncate";
    static final String ROW_TRIGGER = "fencing_guard";
    static final String TRUNCATE_TRIGGER = "fencing_guard_truncate";
    static final String DDL_FUNCTION = "fencing_guard_ddl";


    private static final String HINT = literal(GuardErrors.POSTGRES_HINT);
    /** The start of the statement that refuses a DDL command; the caller appends {@code || <what>;}. */
    private static final String REFUSE_DDL = "    RAISE EXCEPTION USING ERRCODE = 'ZF004', HINT = " + HINT
            + ",\n      MESSAGE = '" + GuardErrors.DDL + "'";

    private PostgresGuardFunctions() {
    }

    /** {@code CREATE OR REPLACE} of the trigger function {@code schema.name()} with {@code body}. */
    static String function(String schema, String name, String body) {
        return "CREATE OR REPLACE FUNCTION " + schema + "." + name + "() RETURNS trigger LANGUAGE plpgsql AS $fencing$"
                + body + "$fencing$";
    }

    /** Reads the session's fence; a sanctioned migration passes; none: ZF002. */
    private static String prologue() {
        return "\n-- " + GuardVersion.MARKER + ": written by fencing-jdbc, checked by DatabaseGuard.verify\n"
                + "DECLARE\n"
                + "  session_fence bigint := nullif(current_setting('fencing.fence', true), '')::bigint;\n"
                + "  session_lock text := nullif(current_setting('fencing.lock', true), '');\n"
                + "  row_fence bigint;\n"
                + "BEGIN\n"
                + "  IF coalesce(current_setting('fencing.migration', true), '') <> '' THEN\n"
                + "    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "    RETURN NEW;\n"
                + "  END IF;\n"
                + "  IF session_fence IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = " + HINT + ";\n"
                + "  END IF;\n";
    }

    static String rowBody(FencingConfig config) {
        String column = ident(config.column());
        String stale = config.comparison() == FencingConfig.Comparison.STRICTLY_NEWER ? ">=" : ">";
        return prologue()
                + "  IF TG_OP <> 'INSERT' THEN\n"
                + "    row_fence := OLD." + column + ";\n"
                + "    IF row_fence " + stale + " session_fence THEN\n"
                + "      RAISE EXCEPTION USING ERRCODE = 'ZF001', MESSAGE = '" + GuardErrors.STALE + "' || session_fence"
                + " || ' on ' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' holding ' || row_fence, HINT = " + HINT + ";\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "  NEW." + column + " := session_fence;\n"
                + "  RETURN NEW;\n"
                + "END\n";
    }

    static String epochBody(FencingConfig config) {
        return prologue()
                + "  IF session_lock IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = " + HINT + ";\n"
                + "  END IF;\n"
                + "  SELECT fence INTO row_fence FROM " + config.epochTable() + " WHERE lock_name = session_lock FOR SHARE;\n"
                + "  IF row_fence IS NULL OR row_fence > session_fence THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF001', MESSAGE = '" + GuardErrors.STALE + "' || session_fence"
                + " || ' on ' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' holding ' || coalesce(row_fence::text, 'unknown'), HINT = " + HINT + ";\n"
                + "  END IF;\n"
                + "  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;\n"
                + "  RETURN NEW;\n"
                + "END\n";
    }

    /** TRUNCATE removes rows without row triggers: refused, except in a sanctioned migration. */
    static String truncateBody() {
        return "\n-- " + GuardVersion.MARKER + ": written by fencing-jdbc, checked by DatabaseGuard.verify\n"
                + "BEGIN\n"
                + "  IF coalesce(current_setting('fencing.migration', true), '') <> '' THEN RETURN NULL; END IF;\n"
                + "  IF nullif(current_setting('fencing.fence', true), '') IS NULL THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = 'ZF002', MESSAGE = '" + GuardErrors.NO_FENCE
                + "' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, HINT = " + HINT + ";\n"
                + "  END IF;\n"
                + "  RAISE EXCEPTION USING ERRCODE = 'ZF003', MESSAGE = '" + GuardErrors.TRUNCATE + "'"
                + " || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ' cannot carry the fence check; delete the rows instead', HINT = " + HINT + ";\n"
                + "END\n";
    }

    /** {@code CREATE OR REPLACE} of the event triggers' function in {@code schema}. */
    static String eventFunction(String schema) {
        return "CREATE OR REPLACE FUNCTION " + schema + "." + DDL_FUNCTION + "() RETURNS event_trigger LANGUAGE plpgsql"
                + " AS $fencing$" + eventBody() + "$fencing$";
    }

    /**
     * The event triggers' function. Each state line is {@code <refs>|<text>}: the relations
     * ({@code rel:<oid>}) or schemas ({@code ns:<oid>}) it belongs to, then what it says. A line
     * that changed during a command is refused when anything it belongs to was guarded when the
     * command started and still exists: dropping a whole fenced table (or schema) is allowed,
     * changing the guard of one that stays is not, and a guard another session installs meanwhile
     * is not this command's change.
     */
    static String eventBody() {
        return "\n-- " + GuardVersion.MARKER + ": written by fencing-jdbc, checked by DatabaseGuard.verify\n"
                + "DECLARE\n"
                + "  state text[];\n"
                + "  before text[];\n"
                + "  changed text;\n"
                + "BEGIN\n"
                + "  IF coalesce(current_setting('fencing.migration', true), '') <> '' THEN RETURN; END IF;\n"
                + refuseTableRewrite()
                + refuseDroppingItsFunctions()
                + collectState()
                + keepStateAtStart()
                + refuseChangedState()
                + "END\n";
    }

    /** A rewrite of a fenced table (its rows rewritten without row triggers) is refused outright. */
    private static String refuseTableRewrite() {
        return "  IF TG_EVENT = 'table_rewrite' THEN\n"
                + "    IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgname = '" + ROW_TRIGGER + "'\n"
                + "               AND tgrelid = pg_catalog.pg_event_trigger_table_rewrite_oid()) THEN\n"
                + REFUSE_DDL + " || TG_TAG || ' would rewrite fenced table '\n"
                + "        || pg_catalog.pg_event_trigger_table_rewrite_oid()::pg_catalog.regclass || ' without its row triggers';\n"
                + "    END IF;\n"
                + "    RETURN;\n"
                + "  END IF;\n";
    }

    /** DROP FUNCTION naming a guard function: refused at the start, since no ddl_command_end would follow. */
    private static String refuseDroppingItsFunctions() {
        return "  IF TG_EVENT = 'ddl_command_start' AND TG_TAG IN ('DROP FUNCTION', 'DROP ROUTINE')\n"
                + "     AND pg_catalog.current_query() ~* 'fencing_guard' THEN\n"
                + REFUSE_DDL + " || TG_TAG || ' names a function of the guard';\n"
                + "  END IF;\n";
    }

    /** Reads into {@code state} one line for everything the guard of a fenced table depends on. */
    private static String collectState() {
        return "  WITH fenced AS (SELECT DISTINCT tgrelid AS rel FROM pg_catalog.pg_trigger WHERE tgname = '" + ROW_TRIGGER + "')\n"
                + "  SELECT pg_catalog.array_agg(line ORDER BY line) INTO state FROM (\n"
                + "    SELECT pg_catalog.format('rel:%s|table %I.%I (relkind %s)', c.oid, n.nspname, c.relname, c.relkind) AS line\n"
                + "      FROM fenced f JOIN pg_catalog.pg_class c ON c.oid = f.rel\n"
                + "      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n"
                + "    UNION ALL\n"
                + "    SELECT pg_catalog.format('rel:%s|trigger %I on %s: enabled %s, type %s, runs %s, arguments %s, when %s, columns %s',\n"
                + "             t.tgrelid, t.tgname, t.tgrelid::pg_catalog.regclass, t.tgenabled, t.tgtype,\n"
                + "             t.tgfoid::pg_catalog.regprocedure, pg_catalog.encode(t.tgargs, 'hex'), t.tgqual IS NOT NULL, t.tgattr)\n"
                + "      FROM pg_catalog.pg_trigger t JOIN fenced f ON f.rel = t.tgrelid WHERE t.tgname LIKE 'fencing!_guard%' ESCAPE '!'\n"
                + "    UNION ALL\n"
                + "    SELECT pg_catalog.format('rel:%s|fence column %I of %s: %s', t.tgrelid, arg.name, t.tgrelid::pg_catalog.regclass,\n"
                + "             coalesce(pg_catalog.format('position %s, type %s, not null %s, default %s', a.attnum,\n"
                + "               a.atttypid::pg_catalog.regtype, a.attnotnull, pg_catalog.pg_get_expr(d.adbin, d.adrelid)), 'missing'))\n"
                + "      FROM pg_catalog.pg_trigger t\n"
                + "      CROSS JOIN LATERAL (SELECT pg_catalog.convert_from(substring(t.tgargs FROM 1\n"
                + "               FOR position(pg_catalog.decode('00', 'hex') IN t.tgargs) - 1), 'UTF8') AS name) arg\n"
                + "      LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = t.tgrelid AND a.attname = arg.name AND NOT a.attisdropped\n"
                + "      LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum\n"
                + "      WHERE t.tgname = '" + ROW_TRIGGER + "' AND t.tgnargs > 0\n"
                + "    UNION ALL\n"
                + "    SELECT pg_catalog.format('rel:%s,rel:%s|%s inherits from %s', i.inhrelid, i.inhparent,\n"
                + "             i.inhrelid::pg_catalog.regclass, i.inhparent::pg_catalog.regclass)\n"
                + "      FROM pg_catalog.pg_inherits i\n"
                + "      WHERE i.inhrelid IN (SELECT rel FROM fenced) OR i.inhparent IN (SELECT rel FROM fenced)\n"
                + "    UNION ALL\n"
                + "    SELECT pg_catalog.format('ns:%s|function %I.%I(): language %s, security definer %s, settings %s, text %s',\n"
                + "             p.pronamespace, n.nspname, p.proname, l.lanname, p.prosecdef, p.proconfig, pg_catalog.md5(p.prosrc))\n"
                + "      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace\n"
                + "      JOIN pg_catalog.pg_language l ON l.oid = p.prolang\n"
                + "      WHERE p.proname LIKE 'fencing!_guard%' ESCAPE '!'\n"
                + "         OR p.oid IN (SELECT tgfoid FROM pg_catalog.pg_trigger WHERE tgname LIKE 'fencing!_guard%' ESCAPE '!')\n"
                + "  ) lines;\n";
    }

    /** At {@code ddl_command_start}: keeps {@code state} for the end of the command (transaction-local). */
    private static String keepStateAtStart() {
        return "  IF TG_EVENT = 'ddl_command_start' THEN\n"
                + "    PERFORM pg_catalog.set_config('fencing.ddl_state', pg_catalog.to_jsonb(coalesce(state, '{}'))::text, true);\n"
                + "    RETURN;\n"
                + "  END IF;\n";
    }

    /** At {@code ddl_command_end}: refuses the command when a line of a table or schema guarded at its start changed. */
    private static String refuseChangedState() {
        return "  IF coalesce(current_setting('fencing.ddl_state', true), '') = '' THEN RETURN; END IF;\n"
                + "  SELECT pg_catalog.array_agg(v) INTO before\n"
                + "    FROM pg_catalog.jsonb_array_elements_text(current_setting('fencing.ddl_state', true)::jsonb) v;\n"
                + "  PERFORM pg_catalog.set_config('fencing.ddl_state', '', true);\n"
                + "  SELECT pg_catalog.string_agg(CASE WHEN line = ANY (coalesce(before, '{}')) THEN 'was ' ELSE 'now ' END\n"
                + "           || pg_catalog.split_part(line, '|', 2), '; ' ORDER BY pg_catalog.split_part(line, '|', 2)) INTO changed\n"
                + "    FROM ((SELECT pg_catalog.unnest(before) EXCEPT SELECT pg_catalog.unnest(state))\n"
                + "          UNION (SELECT pg_catalog.unnest(state) EXCEPT SELECT pg_catalog.unnest(before))) d(line)\n"
                + "    WHERE EXISTS (SELECT 1 FROM pg_catalog.unnest(pg_catalog.string_to_array(pg_catalog.split_part(line, '|', 1), ',')) r(ref)\n"
                // only what was guarded when the command started: another session's install that commits
                // meanwhile (its tables appear only at the end) is none of this command's doing
                + "      WHERE ref IN (SELECT pg_catalog.unnest(pg_catalog.string_to_array(pg_catalog.split_part(b, '|', 1), ','))\n"
                + "                      FROM pg_catalog.unnest(before) b)\n"
                + "        AND ((ref LIKE 'rel:%' AND EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = pg_catalog.substr(ref, 5)::oid))\n"
                + "         OR (ref LIKE 'ns:%' AND EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE oid = pg_catalog.substr(ref, 4)::oid))));\n"
                + "  IF changed IS NOT NULL THEN\n"
                + REFUSE_DDL + " || TG_TAG || ' would change the guard of a fenced table: ' || changed;\n"
                + "  END IF;\n";
    }

    static String literal(String text) {
        return Dialect.POSTGRESQL.quoteLiteral(text);
    }

    static String ident(String name) {
        return Dialect.POSTGRESQL.quoteIdentifier(name);
    }
}
