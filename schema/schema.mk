# schema.mk - embed the numbered migrations of schema/ into libkregress.a.
#
# schema/embed.sh turns the sorted schema/NNNN_*.sql into
# $(BUILD)/daemon/schema_sql.c (the db_migrations[] table of db.h), so the
# binaries carry their schema and never read it from disk at run time.

SCHEMA_SQL := $(sort $(wildcard schema/[0-9][0-9][0-9][0-9]_*.sql))
SCHEMA_C   := $(BUILD)/daemon/schema_sql.c
SCHEMA_O   := $(BUILD)/daemon/schema_sql.o
LIB_OBJ    += $(SCHEMA_O)

$(SCHEMA_C): $(SCHEMA_SQL) schema/embed.sh
	$(quiet) GEN $@
	@mkdir -p $(@D)
	$(Q)sh schema/embed.sh $(SCHEMA_SQL) > $@.tmp && mv $@.tmp $@

$(SCHEMA_O): $(SCHEMA_C) daemon/db.h
	$(quiet) CC $@
	$(Q)$(CC) $(KR_CFLAGS) $(CFLAGS) -c -o $@ $<
