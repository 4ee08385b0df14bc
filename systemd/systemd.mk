# systemd.mk - the unit, tmpfiles.d, sysusers.d and environment files.
#
# `make install-systemd` installs them (DESTDIR, PREFIX honoured); the
# unit is generated from kregressd.service.in with the install paths at
# install time, so that PREFIX given to `make install` is the one used.
# INSTALL_EXTRA collects install targets of fragments for `make install`.

SYSCONFDIR  ?= /etc
TMPFILESDIR ?= /usr/lib/tmpfiles.d
SYSUSERSDIR ?= /usr/lib/sysusers.d

INSTALL_EXTRA += install-systemd

install-systemd:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/default
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		systemd/kregressd.service.in > $(DESTDIR)$(UNITDIR)/kregressd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/kregressd.service
	install -m 644 systemd/kregress.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/kregress.conf
	install -m 644 systemd/kregress.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/kregress.conf
	@# Keep an administrator's edited environment file.
	test -e $(DESTDIR)$(SYSCONFDIR)/default/kregressd || \
		install -m 644 systemd/kregressd.env \
			$(DESTDIR)$(SYSCONFDIR)/default/kregressd
.PHONY: install-systemd
