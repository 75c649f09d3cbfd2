package dev.bulkdata.it.modulepath;

import dev.bulkdata.storage.schema.FloatField;
import dev.bulkdata.storage.schema.IntField;
import dev.bulkdata.storage.schema.InvalidHandleException;
import dev.bulkdata.storage.Table;
import dev.bulkdata.storage.kotlin.TableDef;
import dev.bulkdata.storage.kotlin.TypedTable;

/** Java on the module path, on a table declared in Kotlin. */
public final class App {
    public static void main(String[] args) {
        Module core = Table.class.getModule();
        check(App.class.getModule().isNamed(), "the application is a named module");
        check("dev.bulkdata.storage".equals(core.getName()), "storage-java is the module dev.bulkdata.storage");
        check(core.isExported("dev.bulkdata.storage"), "the API package is exported");
        check(!core.isExported("dev.bulkdata.storage.internal"), "the internal package is not exported");
        check("dev.bulkdata.storage.kotlin".equals(TableDef.class.getModule().getName()),
                "storage-kotlin is the module dev.bulkdata.storage.kotlin");

        FloatField volume = Sounds.VOLUME.field();
        IntField plays = Sounds.PLAYS.field();
        try (TypedTable<Sounds> typed = Sounds.openTable()) {
            Table sounds = typed.core();
            long[] handles = new long[5_000];
            sounds.addAll(handles);
            for (int i = 0; i < handles.length; i++) {
                sounds.set(handles[i], volume, 0.5f);
            }
            sounds.forEach((chunk, slot) -> chunk.set(slot, plays, chunk.get(slot, plays) + 1));
            sounds.remove(handles[42]);
            try {
                sounds.get(handles[42], volume);
                check(false, "a stale handle throws");
            } catch (InvalidHandleException expected) {
                check(expected.reason() == InvalidHandleException.Reason.STALE, "reason STALE");
            }
            long total = 0;
            for (int i = 0; i < handles.length; i++) {
                if (sounds.contains(handles[i])) {
                    total += sounds.get(handles[i], plays);
                }
            }
            check(total == handles.length - 1, "one play per live sound: " + total);
            System.out.println("module-path consumer: " + sounds.stats() + ", handle " + sounds.format(handles[7]));
            long h = typed.add();
            typed.set(h, Sounds.VOLUME, 0.25f);
            check(typed.get(h, Sounds.VOLUME) == 0.25f, "the typed table takes the static columns");
        }
        System.out.println("module-path consumer: OK");
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("failed: " + what);
        }
    }

    private App() {
    }
}
