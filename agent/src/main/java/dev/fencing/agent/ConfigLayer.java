package dev.fencing.agent;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.config.TableName;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * How the agent's configuration combines with the application's own when the application
 * fences a connection itself ({@code FencingDataSource}, {@code jdbc:fencing:}): the connection
 * must enforce the agent's tables as well, and each table is fenced by exactly one layer (a
 * second layer over a table would see the first one's fence column set and refuse every write).
 *
 * <ul>
 *   <li>A table of the agent's that the application fences too (the same name, or the
 *       application's unqualified name of it) stays with the application's layer. Its settings
 *       there must be the agent's: the fence column, the comparison and the table's mode (with the
 *       epoch table, in epoch mode). When one differs, the connection is refused: which of
 *       two checks was meant cannot be decided.</li>
 *   <li>A table of the agent's that the application does not fence at all gets a layer of the
 *       agent's over the application's connection, with the agent's settings and only those
 *       tables.</li>
 *   <li>A table named so that it overlaps the application's only in part (the agent's unqualified
 *       {@code orders} against the application's {@code billing.orders}) cannot be split between
 *       two layers: the connection is refused.</li>
 * </ul>
 */
final class ConfigLayer {

    private ConfigLayer() {
    }

    /**
     * The configuration of the layer the agent adds over a connection the application fenced
     * with {@code application}; null when the application's layer covers every table of
     * {@code agent} already.
     *
     * @throws FencingException when the two cannot be combined (the message names the table and the setting)
     */
    static FencingConfig over(FencingConfig application, FencingConfig agent) throws FencingException {
        List<TableName> extra = new ArrayList<>();
        for (TableName table : FencedTableSet.of(agent).names()) {
            TableName covering = covering(application, table);
            if (covering != null) {
                requireSameCheck(application, covering, agent, table);
                continue;
            }
            for (TableName own : FencedTableSet.of(application).names()) {
                if (own.matches(table)) {
                    throw new FencingException("fencing agent: the agent fences " + table + " and the application's own "
                            + "fencing configuration " + own + "; they overlap only in part, so neither can fence the "
                            + "other's writes. Name the table the same way in both (" + FencingConfig.TABLES + ")");
                }
            }
            extra.add(table);
        }
        if (extra.isEmpty()) {
            return null;
        }
        Properties layer = new Properties();
        agent.toProperties().forEach((key, value) -> {
            String name = key.toString();
            if (!name.startsWith("fencing.table.")) {
                layer.setProperty(name, value.toString());
            }
        });
        List<String> names = new ArrayList<>();
        for (TableName table : extra) {
            names.add(table.toString());
            if (FencedTableSet.of(agent).modeOf(table) != agent.mode()) {
                layer.setProperty("fencing.table." + table + ".mode", FencedTableSet.of(agent).modeOf(table).toString());
            }
        }
        layer.setProperty(FencingConfig.TABLES, String.join(",", names));
        return FencingConfig.fromProperties(layer);
    }

    /** The application's table that fences every write {@code table} names; null when there is none. */
    private static TableName covering(FencingConfig application, TableName table) {
        for (TableName own : FencedTableSet.of(application).names()) {
            if (own.equals(table) || own.schema() == null && own.table().equals(table.table())) {
                return own;
            }
        }
        return null;
    }

    private static void requireSameCheck(FencingConfig application, TableName own, FencingConfig agent, TableName table)
            throws FencingException {
        String differs = null;
        if (!application.column().equals(agent.column())) {
            differs = FencingConfig.COLUMN + " (" + application.column() + " / " + agent.column() + ")";
        } else if (application.comparison() != agent.comparison()) {
            differs = FencingConfig.COMPARISON + " (" + application.comparison() + " / " + agent.comparison() + ")";
        } else if (FencedTableSet.of(application).modeOf(own) != FencedTableSet.of(agent).modeOf(table)) {
            differs = "the mode (" + FencedTableSet.of(application).modeOf(own) + " / " + FencedTableSet.of(agent).modeOf(table) + ")";
        } else if (FencedTableSet.of(agent).modeOf(table) == FencingConfig.Mode.EPOCH
                && !TableName.parse(application.epochTable()).equals(TableName.parse(agent.epochTable()))) {
            differs = FencingConfig.EPOCH_TABLE + " (" + application.epochTable() + " / " + agent.epochTable() + ")";
        }
        if (differs != null) {
            throw new FencingException("fencing agent: the table " + table + " is fenced by the application's own "
                    + "fencing configuration and by the agent's, with different " + differs + " (application / agent); "
                    + "make them the same, or leave the table to one of the two");
        }
    }
}
