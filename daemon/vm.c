/*
 * vm.c - transient libvirt domains that boot a kernel directly, with the
 * console streamed into a capped log (the only file that includes libvirt).
 *
 * Threads and the event loop.  libvirt's remote driver only moves stream
 * data and keepalives while some thread runs an event loop, so the first
 * vm_host_open() registers libvirt's default event implementation
 * (virEventRegisterDefaultImpl) and starts one detached thread that runs
 * virEventRunDefaultImpl() forever.  Each boot then uses plain blocking
 * calls: a console thread blocks in virStreamRecv() and copies bytes to the
 * log, and the calling thread waits on a condition variable with a
 * deadline, polling the domain state every VM_POLL_MS.  This was chosen
 * over a callback-driven design because a boot is a blocking step of a job
 * run on a worker (never on the daemon's loop), and the deadline logic is
 * easiest to get right as straight-line code.
 *
 * Life of a boot: the domain is created paused (so that not one console
 * byte is lost), with VIR_DOMAIN_START_AUTODESTROY (if this process dies,
 * libvirtd destroys the domain when the connection drops), on_poweroff,
 * on_reboot and on_crash all "destroy", and "panic=1" on the command line
 * (a panicking kernel reboots a second later, which ends the domain, or
 * is destroyed after VM_PANIC_GRACE_MS once its panic line is read).  Not
 * panic=-1: a guest that reboots at once takes the console bytes still
 * in flight (the panic line itself, at times) down with the domain, and
 * the boot would read as an incomplete one instead of a panic.  The console
 * is opened, the domain resumed, and the domain destroyed as soon as the
 * guest's END line is read (the workloads' /init waits for that instead
 * of powering off, which would lose the console's last bytes), or at the
 * deadline if it has not ended by itself.  A guest that ended by itself is not
 * waited for: libvirt's lifecycle event says it is shutting down, and
 * libvirtd then kills QEMU and polls (200 ms at least) until the process
 * is gone; vm_boot() returns at once instead.  vm_reap() is the second
 * line of defence for domains that survive their creator anyway (a
 * libvirtd restart, a remote connection not yet timed out).
 *
 * Remote hosts: a kernel path is meaningless on another machine, so for a
 * remote URI the kernel and initramfs are uploaded as volumes of a
 * directory pool "kregress" (created transient if missing) and the domain
 * boots from the volumes' paths.  Volumes are named by size and SHA-256 of
 * the content, so an image already there is not sent again.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "alloc.h"
#include "log.h"
#include "now.h"
#include "sha256.h"
#include "strbuf.h"
#include "vm.h"

#define VM_PREFIX		"kregress-"
#define VM_RAND_BYTES		6	/* random part of a name, in hex */
#define VM_POLL_MS		100
#define VM_STATE_POLL_MS	500
#define VM_PANIC_GRACE_MS	1500	/* to capture the rest of a trace */
#define VM_READER_WAIT_MS	1000
#define VM_EVENT_WAIT_MS	100	/* for the shutdown event after EOF */
#define VM_POOL_NAME		"kregress"
#define VM_POOL_PATH		"/var/lib/libvirt/kregress-pool"
#define VM_UPLOAD_MAX		(512ULL << 20)

struct vm_host {
	virConnectPtr conn;
	char *uri;
	int remote;
};

static pthread_once_t vm_once = PTHREAD_ONCE_INIT;
static int vm_once_failed;
static pthread_mutex_t vm_upload_lock = PTHREAD_MUTEX_INITIALIZER;

const char *vm_status_str(enum vm_status status)
{
	switch (status) {
	case VM_STATUS_OK:
		return "ok";
	case VM_STATUS_PANIC:
		return "panic";
	case VM_STATUS_OOPS:
		return "oops";
	case VM_STATUS_HANG:
		return "hang";
	case VM_STATUS_TIMEOUT:
		return "timeout";
	case VM_STATUS_STOPPED:
		return "stopped";
	case VM_STATUS_ERROR:
		return "error";
	}
	return "unknown";
}

static int prefix_valid(const char *p)
{
	return p && !strncmp(p, VM_PREFIX, strlen(VM_PREFIX)) &&
	       strlen(p) < 40;
}

static char own_prefix[40];

void vm_set_name_prefix(const char *prefix)
{
	if (!prefix_valid(prefix)) {
		log_warn("vm", "'%s' is not a domain name prefix", prefix);
		return;
	}
	snprintf(own_prefix, sizeof(own_prefix), "%s", prefix);
}

const char *vm_name_prefix(void)
{
	const char *p = getenv("KREGRESS_VM_PREFIX");

	if (prefix_valid(p))
		return p;
	return own_prefix[0] ? own_prefix : VM_PREFIX;
}

static const char *virt_error(void)
{
	const char *msg = virGetLastErrorMessage();

	return msg ? msg : "unknown libvirt error";
}

/* libvirt prints every error on stderr by default; we report our own. */
static void virt_error_quiet(void *opaque, virErrorPtr err)
{
}

static void *event_loop(void *arg)
{
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(10000);
	return NULL;
}

static void vm_setup(void)
{
	pthread_t tid;

	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0) {
		vm_once_failed = 1;
		return;
	}
	virSetErrorFunc(NULL, virt_error_quiet);
	if (pthread_create(&tid, NULL, event_loop, NULL)) {
		vm_once_failed = 1;
		return;
	}
	pthread_detach(tid);
}

/*
 * "qemu:///system" and "qemu+unix:///system" are this machine's socket;
 * anything with a host part or another transport (tcp, tls, ssh, libssh,
 * ext) is treated as remote, even when it loops back to this machine.
 */
static int uri_is_remote(const char *uri)
{
	const char *colon = strstr(uri, "://");
	const char *plus = strchr(uri, '+');

	if (!colon)
		return 0;
	if (colon[3] && colon[3] != '/')
		return 1;
	if (plus && plus < colon && strncmp(plus, "+unix:", 6))
		return 1;
	return 0;
}

int vm_host_open(const char *uri, struct vm_host **out)
{
	struct vm_host *h;

	*out = NULL;
	if (!uri || !*uri)
		uri = "qemu:///system";
	pthread_once(&vm_once, vm_setup);
	if (vm_once_failed)
		return error("vm", "libvirt: cannot start the event loop");
	h = xcalloc(1, sizeof(*h));
	h->uri = xstrdup(uri);
	h->remote = uri_is_remote(uri);
	h->conn = virConnectOpen(uri);
	if (!h->conn) {
		error("vm", "%s: cannot connect: %s", uri, virt_error());
		vm_host_free(h);
		return -1;
	}
	/* Notice a dead remote peer within ~20 s instead of blocking forever. */
	if (h->remote)
		virConnectSetKeepAlive(h->conn, 5, 3);
	*out = h;
	return 0;
}

void vm_host_free(struct vm_host *h)
{
	if (!h)
		return;
	if (h->conn)
		virConnectClose(h->conn);
	free(h->uri);
	free(h);
}

int vm_host_is_remote(const struct vm_host *h)
{
	return h->remote;
}

const char *vm_host_uri(const struct vm_host *h)
{
	return h->uri;
}

/* Copies the text between <tag> and </tag> found after from, capped. */
static void xml_text(const char *from, const char *tag, char *out,
		     size_t size)
{
	char open[64], close[64];
	const char *a, *b;
	size_t n;

	out[0] = '\0';
	if (!from)
		return;
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	a = strstr(from, open);
	if (!a)
		return;
	a += strlen(open);
	b = strstr(a, close);
	if (!b)
		return;
	n = (size_t)(b - a);
	if (n >= size)
		n = size - 1;
	memcpy(out, a, n);
	out[n] = '\0';
}

int vm_host_info(struct vm_host *h, struct vm_host_info *info)
{
	virNodeInfo node;
	char *caps = NULL;
	const char *host, *guest;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	if (virNodeGetInfo(h->conn, &node) < 0) {
		error("vm", "%s: node info: %s", h->uri, virt_error());
		goto out;
	}
	info->memory_kib = node.memory;
	info->cpus = node.cpus;
	caps = virConnectGetCapabilities(h->conn);
	if (!caps) {
		error("vm", "%s: capabilities: %s", h->uri, virt_error());
		goto out;
	}
	host = strstr(caps, "<host>");
	xml_text(host, "arch", info->arch, sizeof(info->arch));
	xml_text(host, "model", info->cpu_model, sizeof(info->cpu_model));
	if (!info->arch[0])
		snprintf(info->arch, sizeof(info->arch), "%s", node.model);
	/* Is type kvm offered for a guest of the host's own arch? */
	for (guest = strstr(caps, "<guest>"); guest;
	     guest = strstr(guest + 1, "<guest>")) {
		const char *end = strstr(guest, "</guest>");
		const char *kvm = strstr(guest, "<domain type='kvm'");

		if (!end)
			break;
		if (kvm && kvm < end) {
			char want[80];

			snprintf(want, sizeof(want), "<arch name='%s'>",
				 info->arch);
			if (strstr(guest, want) && strstr(guest, want) < end)
				info->kvm_offered = 1;
		}
	}
	ret = 0;
out:
	free(caps);
	return ret;
}

static void xml_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '\'':
			strbuf_addstr(sb, "&apos;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

#define QEMU_XMLNS "http://libvirt.org/schemas/domain/qemu/1.0"

static void domain_xml(struct strbuf *sb, const struct vm_boot_spec *spec,
		       const char *name, const char *kernel,
		       const char *initrd)
{
	const struct arch *a = spec->arch;
	int tcg = spec->accel == ARCH_TCG;

	strbuf_addf(sb, "<domain type='%s'%s>\n", tcg ? "qemu" : "kvm",
		    spec->icount ? " xmlns:qemu='" QEMU_XMLNS "'" : "");
	strbuf_addf(sb, "  <name>%s</name>\n", name);
	strbuf_addf(sb, "  <memory unit='MiB'>%u</memory>\n",
		    spec->memory_mib ? spec->memory_mib : 256);
	strbuf_addf(sb, "  <vcpu>%u</vcpu>\n", spec->vcpus ? spec->vcpus : 1);
	strbuf_addf(sb, "  <os>\n    <type arch='%s' machine='%s'>hvm</type>\n",
		    a->machine, a->qemu_machine);
	strbuf_addstr(sb, "    <kernel>");
	xml_escape(sb, kernel);
	strbuf_addstr(sb, "</kernel>\n");
	if (initrd) {
		strbuf_addstr(sb, "    <initrd>");
		xml_escape(sb, initrd);
		strbuf_addstr(sb, "</initrd>\n");
	}
	/* The console and what each arch needs: arch.c says why. */
	strbuf_addf(sb, "    <cmdline>console=%s panic=1%s", a->console,
		    tcg ? a->tcg_cmdline : "");
	if (spec->cmdline && *spec->cmdline) {
		strbuf_addch(sb, ' ');
		xml_escape(sb, spec->cmdline);
	}
	strbuf_addstr(sb, "</cmdline>\n  </os>\n");
	if (a->acpi)
		strbuf_addstr(sb, "  <features><acpi/></features>\n");
	if (!tcg)
		strbuf_addstr(sb, "  <cpu mode='host-passthrough'/>\n");
	else if (a->tcg_cpu)
		strbuf_addf(sb, "  <cpu mode='custom' match='exact'>"
			    "<model fallback='forbid'>%s</model></cpu>\n",
			    a->tcg_cpu);
	strbuf_addstr(sb,
		"  <clock offset='utc'/>\n"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n"
		"  <devices>\n");
	if (a->no_usb)
		strbuf_addstr(sb, "    <controller type='usb' model='none'/>\n");
	strbuf_addstr(sb,
		"    <serial type='pty'><target port='0'/></serial>\n"
		"    <console type='pty'><target type='serial' port='0'/>"
		"</console>\n"
		"    <memballoon model='none'/>\n"
		"  </devices>\n");
	/*
	 * libvirt has no element for instruction counting; its QEMU
	 * namespace passes the option through (the domain is then marked
	 * "tainted", which is all it means).  sleep=off: an idle guest's
	 * clock jumps to the next timer instead of waiting in real time.
	 */
	if (spec->icount)
		strbuf_addstr(sb,
			"  <qemu:commandline>\n"
			"    <qemu:arg value='-icount'/>\n"
			"    <qemu:arg value='shift=0,sleep=off'/>\n"
			"  </qemu:commandline>\n");
	strbuf_addstr(sb, "</domain>\n");
}

static int random_name(char *out, size_t size)
{
	unsigned char r[VM_RAND_BYTES];
	size_t i;
	struct strbuf sb = STRBUF_INIT;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return error("vm", "getrandom: %s", strerror(errno));
	strbuf_addstr(&sb, vm_name_prefix());
	for (i = 0; i < sizeof(r); i++)
		strbuf_addf(&sb, "%02x", r[i]);
	snprintf(out, size, "%s", sb.buf);
	strbuf_release(&sb);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Remote hosts: kernel and initramfs as storage volumes.             */

/*
 * The size and the SHA-256 of the file at path, what its volume is named
 * after.  Not a CRC: an x86 bzImage ends with the CRC32 that makes its
 * whole CRC32 0xffffffff, so every kernel of one size would share a name
 * and a remote host would boot whichever was uploaded first.
 */
static int file_digest(const char *path, unsigned long long *size,
		       char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 h;
	struct stat st;

	if (stat(path, &st) < 0)
		return error("vm", "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error("vm", "%s: not a regular file", path);
	if ((unsigned long long)st.st_size > VM_UPLOAD_MAX)
		return error("vm", "%s: larger than %llu MiB", path,
			     VM_UPLOAD_MAX >> 20);
	*size = (unsigned long long)st.st_size;
	sha256_init(&h);
	if (sha256_update_file(&h, path) < 0) {
		sha256_release(&h);
		return -1;
	}
	sha256_final_hex(&h, hex);
	return 0;
}

static virStoragePoolPtr pool_get(struct vm_host *h)
{
	virStoragePoolPtr pool;
	struct strbuf xml = STRBUF_INIT;

	pool = virStoragePoolLookupByName(h->conn, VM_POOL_NAME);
	if (pool) {
		if (virStoragePoolIsActive(pool) != 1 &&
		    virStoragePoolCreate(pool, 0) < 0) {
			error("vm", "%s: pool %s: %s", h->uri, VM_POOL_NAME,
			      virt_error());
			virStoragePoolFree(pool);
			return NULL;
		}
		return pool;
	}
	strbuf_addf(&xml, "<pool type='dir'><name>%s</name>"
		    "<target><path>%s</path></target></pool>",
		    VM_POOL_NAME, VM_POOL_PATH);
	pool = virStoragePoolCreateXML(h->conn, xml.buf,
				       VIR_STORAGE_POOL_CREATE_WITH_BUILD);
	if (!pool)
		error("vm", "%s: create pool %s: %s", h->uri, VM_POOL_NAME,
		      virt_error());
	strbuf_release(&xml);
	return pool;
}

static int upload_source(virStreamPtr st, char *data, size_t nbytes,
			 void *opaque)
{
	int fd = *(int *)opaque;

	return (int)read(fd, data, nbytes);
}

/* Uploads path into the pool unless a volume of that content is there;
 * *remote_path (caller frees) is where the remote host sees it. */
static int upload(struct vm_host *h, const char *path, const char *what,
		  char **remote_path)
{
	virStoragePoolPtr pool = NULL;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	virStorageVolInfo vinfo;
	unsigned long long size = 0;
	char hex[SHA256_HEX_LEN + 1], name[96];
	struct strbuf xml = STRBUF_INIT;
	int fd = -1, ret = -1;

	*remote_path = NULL;
	if (file_digest(path, &size, hex) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s%s-%llu-%.16s", VM_PREFIX, what,
		 size, hex);
	pthread_mutex_lock(&vm_upload_lock);
	pool = pool_get(h);
	if (!pool)
		goto out;
	virStoragePoolRefresh(pool, 0);
	vol = virStorageVolLookupByName(pool, name);
	if (vol && virStorageVolGetInfo(vol, &vinfo) == 0 &&
	    vinfo.capacity == size)
		goto have;
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
	strbuf_addf(&xml, "<volume><name>%s</name>"
		    "<capacity unit='bytes'>%llu</capacity>"
		    "<target><format type='raw'/></target></volume>",
		    name, size);
	vol = virStorageVolCreateXML(pool, xml.buf, 0);
	if (!vol) {
		error("vm", "%s: create volume %s: %s", h->uri, name,
		      virt_error());
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("vm", "%s: %s", path, strerror(errno));
		goto fail_vol;
	}
	st = virStreamNew(h->conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, size, 0) < 0 ||
	    virStreamSendAll(st, upload_source, &fd) < 0 ||
	    virStreamFinish(st) < 0) {
		error("vm", "%s: upload %s: %s", h->uri, path, virt_error());
		if (st)
			virStreamAbort(st);
		goto fail_vol;
	}
have:
	*remote_path = virStorageVolGetPath(vol);
	if (!*remote_path) {
		error("vm", "%s: volume %s: %s", h->uri, name, virt_error());
		goto out;
	}
	ret = 0;
	goto out;
fail_vol:
	virStorageVolDelete(vol, 0);
out:
	pthread_mutex_unlock(&vm_upload_lock);
	if (fd >= 0)
		close(fd);
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (pool)
		virStoragePoolFree(pool);
	strbuf_release(&xml);
	return ret;
}

/* ------------------------------------------------------------------ */
/* One boot.                                                          */

struct console {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	virStreamPtr st;
	const struct vm_boot_spec *spec;
	int fd;			/* the log file */
	size_t cap, written;
	int truncated;
	int ended;		/* the stream reached EOF or an error */
	int done;		/* on_console() said the guest is done */
	int going;		/* libvirt reported the guest shut down or
				 * stopped: it destroys the domain itself */
	double t_resume, t_first, t_done;
	struct guestlog gl;
	int refs;		/* vm_boot()'s, and the lifecycle callback's
				 * while libvirt holds it */
	long late_event_ms;	/* test hook: KREGRESS_TEST_LATE_EVENT_MS */
};

/*
 * On the heap, not vm_boot()'s stack: libvirt drops its lock while it
 * runs an event callback, so the callback may still be running, or about
 * to, when virConnectDomainEventDeregisterAny() returns.  libvirt calls
 * lifecycle_release() once it is done with the callback; the console is
 * freed by whichever of the two lets go last.
 */
static struct console *console_new(const struct vm_boot_spec *spec)
{
	struct console *c = xcalloc(1, sizeof(*c));
	const char *late;

	c->fd = -1;
	c->t_first = c->t_done = -1;
	c->spec = spec;
	c->cap = spec->console_cap ? spec->console_cap : (4u << 20);
	guestlog_init(&c->gl);
	guestlog_set_end(&c->gl, spec->end_marker);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->refs = 1;
	late = getenv("KREGRESS_TEST_LATE_EVENT_MS");
	c->late_event_ms = late ? strtol(late, NULL, 10) : 0;
	return c;
}

static void console_get(struct console *c)
{
	pthread_mutex_lock(&c->lock);
	c->refs++;
	pthread_mutex_unlock(&c->lock);
}

static void console_put(struct console *c)
{
	int last;

	pthread_mutex_lock(&c->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/*
 * Lifecycle events of the domain, on the event loop thread.  A guest that
 * powers off, reboots or crashes is "shutdown" first (QEMU runs with
 * -no-shutdown); with on_poweroff/on_reboot/on_crash "destroy", libvirtd
 * then kills QEMU by itself and waits for the process to be gone (at
 * least one 200 ms poll).  Knowing that, vm_boot() need not wait for it.
 */
static int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event,
			   int detail, void *opaque)
{
	struct console *c = opaque;

	/* Test hook: an event still in this callback when vm_boot() is
	 * past deregistering it (tests/slow/t-runner-ab.sh). */
	if (c->late_event_ms > 0)
		nanosleep(&(struct timespec){ c->late_event_ms / 1000,
				(c->late_event_ms % 1000) * 1000000L }, NULL);
	if (event != VIR_DOMAIN_EVENT_SHUTDOWN &&
	    event != VIR_DOMAIN_EVENT_STOPPED)
		return 0;
	pthread_mutex_lock(&c->lock);
	c->going = 1;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* libvirt's free callback of lifecycle_event()'s opaque. */
static void lifecycle_release(void *opaque)
{
	console_put(opaque);
}

static void *console_thread(void *arg)
{
	struct console *c = arg;
	char buf[65536];
	int n;

	for (;;) {
		size_t keep;
		int done = 0;

		n = virStreamRecv(c->st, buf, sizeof(buf));
		if (n <= 0)
			break;
		keep = (size_t)n;
		if (c->written + keep > c->cap) {
			keep = c->cap - c->written;
			c->truncated = 1;
		}
		if (keep) {
			/* A short write only loses log text, never the boot. */
			if (write(c->fd, buf, keep) < 0)
				c->truncated = 1;
			c->written += keep;
			if (c->spec->on_console)
				done = c->spec->on_console(c->spec->opaque,
					buf, keep, now_s() - c->t_resume);
		}
		pthread_mutex_lock(&c->lock);
		if (c->t_first < 0)
			c->t_first = now_s();
		guestlog_feed(&c->gl, buf, (size_t)n);
		if (c->gl.end_seen)
			done = 1;
		if (done && !c->done) {
			c->done = 1;
			c->t_done = now_s();
		}
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_lock(&c->lock);
	guestlog_finish(&c->gl);
	c->ended = 1;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static void wait_ms(struct console *c, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_cond_timedwait(&c->cond, &c->lock, &ts);
}

/* 1 while the domain runs, 0 once gone or shut off, 2 when paused. */
static int domain_alive(virDomainPtr dom, int *reason)
{
	int state = 0;

	*reason = 0;
	if (virDomainGetState(dom, &state, reason, 0) < 0)
		return 0;
	if (state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED)
		return 0;
	if (state == VIR_DOMAIN_PAUSED)
		return 2;
	return 1;
}

static void result_error(struct vm_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result_error(struct vm_result *res, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	res->status = VM_STATUS_ERROR;
	va_start(ap, fmt);
	n = vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
	/* Cut inside a UTF-8 sequence (libvirt quotes paths with "“"):
	 * drop the partial character. */
	if (n >= (int)sizeof(res->reason)) {
		size_t len = strlen(res->reason);

		while (len && ((unsigned char)res->reason[len - 1] & 0xc0) ==
		       0x80)
			len--;
		if (len && (unsigned char)res->reason[len - 1] >= 0xc0)
			len--;
		res->reason[len] = '\0';
	}
	/* One line: libvirt's messages may carry QEMU's stderr lines. */
	for (p = res->reason; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	error("vm", "%s", res->reason);
}

int vm_boot(struct vm_host *h, const struct vm_boot_spec *spec,
	    struct vm_result *res)
{
	struct console *c = console_new(spec);
	struct strbuf xml = STRBUF_INIT;
	char *kpath = NULL, *ipath = NULL;
	virDomainPtr dom = NULL;
	pthread_t tid;
	int have_thread = 0, timed_out = 0, stopped = 0, ret = -1;
	int alive = 1, reason = 0, destroyed = 0, event_id = -1, going;
	double t0, deadline, next_state, grace_end = 0, t_end = 0;
	unsigned int timeout_s = spec->timeout_s ? spec->timeout_s : 120;

	memset(res, 0, sizeof(*res));
	res->first_output_s = res->done_s = -1;

	if (!spec->kernel || !spec->console_log || !spec->arch) {
		result_error(res, "boot: kernel, arch and console log are "
			     "required");
		goto out;
	}
	if (spec->accel != ARCH_KVM && spec->accel != ARCH_TCG) {
		result_error(res, "boot: the accel is kvm or tcg");
		goto out;
	}
	if (spec->icount && spec->accel != ARCH_TCG) {
		result_error(res, "boot: instruction time needs TCG");
		goto out;
	}
	if (random_name(res->domain, sizeof(res->domain)) < 0) {
		result_error(res, "boot: no random name");
		goto out;
	}
	if (h->remote) {
		if (upload(h, spec->kernel, "kernel", &kpath) < 0 ||
		    (spec->initrd &&
		     upload(h, spec->initrd, "initrd", &ipath) < 0)) {
			res->status = VM_STATUS_ERROR;
			snprintf(res->reason, sizeof(res->reason),
				 "upload to %s failed", h->uri);
			goto out;
		}
	} else {
		if (access(spec->kernel, R_OK) ||
		    (spec->initrd && access(spec->initrd, R_OK))) {
			result_error(res, "%s: %s", spec->initrd &&
				     access(spec->kernel, R_OK) == 0 ?
				     spec->initrd : spec->kernel,
				     strerror(errno));
			goto out;
		}
		kpath = realpath(spec->kernel, NULL);
		ipath = spec->initrd ? realpath(spec->initrd, NULL) : NULL;
		if (!kpath || (spec->initrd && !ipath)) {
			result_error(res, "%s: %s", spec->kernel,
				     strerror(errno));
			goto out;
		}
	}
	c->fd = open(spec->console_log,
		     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		result_error(res, "%s: %s", spec->console_log,
			     strerror(errno));
		goto out;
	}
	domain_xml(&xml, spec, res->domain, kpath, ipath);

	t0 = now_s();
	dom = virDomainCreateXML(h->conn, xml.buf,
				 VIR_DOMAIN_START_PAUSED |
				 VIR_DOMAIN_START_AUTODESTROY);
	if (!dom) {
		result_error(res, "%s: create %s: %s", h->uri, res->domain,
			     virt_error());
		goto out;
	}
	/* Without events, teardown waits for libvirtd (slower, same result). */
	console_get(c);
	event_id = virConnectDomainEventRegisterAny(h->conn, dom,
			VIR_DOMAIN_EVENT_ID_LIFECYCLE,
			VIR_DOMAIN_EVENT_CALLBACK(lifecycle_event), c,
			lifecycle_release);
	if (event_id < 0)	/* libvirt keeps no reference then */
		console_put(c);
	c->st = virStreamNew(h->conn, 0);
	if (!c->st || virDomainOpenConsole(dom, NULL, c->st,
					  VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		result_error(res, "%s: console of %s: %s", h->uri,
			     res->domain, virt_error());
		goto out;
	}
	/* Set before the console thread reads it; the guest is paused. */
	c->t_resume = now_s();
	if (pthread_create(&tid, NULL, console_thread, c)) {
		result_error(res, "boot: cannot start the console thread");
		goto out;
	}
	have_thread = 1;
	res->create_s = c->t_resume - t0;
	if (virDomainResume(dom) < 0) {
		result_error(res, "%s: resume %s: %s", h->uri, res->domain,
			     virt_error());
		goto out;
	}
	deadline = c->t_resume + timeout_s;
	next_state = c->t_resume + VM_STATE_POLL_MS / 1000.0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		double t = now_s();

		if (c->ended)
			break;
		if (t >= deadline) {
			timed_out = 1;
			break;
		}
		/*
		 * A guest that is done waits for us to end it (workloads/
		 * init.c says why): everything it had to say is here.  A
		 * panic starts a grace period for the rest of its trace.
		 */
		if (c->done)
			break;
		if (!grace_end && c->gl.event == GUESTLOG_PANIC)
			grace_end = t + VM_PANIC_GRACE_MS / 1000.0;
		if (grace_end && t >= grace_end)
			break;
		if (t >= next_state) {
			pthread_mutex_unlock(&c->lock);
			alive = domain_alive(dom, &reason);
			pthread_mutex_lock(&c->lock);
			next_state = t + VM_STATE_POLL_MS / 1000.0;
			if (alive != 1)
				break;
		}
		wait_ms(c, VM_POLL_MS);
	}
	res->run_s = now_s() - c->t_resume;
	t_end = now_s();
	/*
	 * The console's EOF may overtake libvirt's shutdown event; a guest
	 * that is done and gone is worth a short wait for it.
	 */
	while (event_id >= 0 && c->done && c->ended && !c->going &&
	       now_s() < t_end + VM_EVENT_WAIT_MS / 1000.0)
		wait_ms(c, 10);
	pthread_mutex_unlock(&c->lock);
	if (alive == 2)
		stopped = 1;
	ret = 0;
out:
	pthread_mutex_lock(&c->lock);
	going = c->going;
	pthread_mutex_unlock(&c->lock);
	if (dom) {
		/*
		 * Ends the console stream too; harmless if already gone.  A
		 * domain libvirt is destroying already is left to it: asking
		 * would only wait for its kill loop.
		 */
		if (!going && domain_alive(dom, &reason))
			destroyed = virDomainDestroy(dom) == 0;
		if (event_id >= 0)
			virConnectDomainEventDeregisterAny(h->conn, event_id);
		virDomainFree(dom);
	}
	if (have_thread) {
		double until = now_s() + VM_READER_WAIT_MS / 1000.0;
		int ended;

		pthread_mutex_lock(&c->lock);
		while (!c->ended && now_s() < until)
			wait_ms(c, VM_POLL_MS);
		ended = c->ended;
		pthread_mutex_unlock(&c->lock);
		if (!ended)
			virStreamAbort(c->st);
		pthread_join(tid, NULL);
	} else if (c->st) {
		virStreamAbort(c->st);
	}
	if (c->st)
		virStreamFree(c->st);
	if (c->fd >= 0)
		close(c->fd);
	if (t_end > 0)
		res->teardown_s = now_s() - t_end;
	res->console_bytes = c->written;
	res->console_truncated = c->truncated;
	res->reached_init = c->gl.reached_init;
	if (c->t_first >= 0)
		res->first_output_s = c->t_first - c->t_resume;
	if (c->t_done >= 0)
		res->done_s = c->t_done - c->t_resume;
	if (ret == 0) {
		switch (c->gl.event) {
		case GUESTLOG_PANIC:
			res->status = VM_STATUS_PANIC;
			break;
		case GUESTLOG_HANG:
			res->status = VM_STATUS_HANG;
			break;
		case GUESTLOG_OOPS:
			res->status = VM_STATUS_OOPS;
			break;
		case GUESTLOG_NONE:
			res->status = VM_STATUS_OK;
			break;
		}
		if (c->gl.event != GUESTLOG_NONE)
			snprintf(res->reason, sizeof(res->reason), "%s",
				 c->gl.reason);
		if (res->status == VM_STATUS_OK && stopped) {
			res->status = VM_STATUS_STOPPED;
			snprintf(res->reason, sizeof(res->reason),
				 "the hypervisor paused the guest (reason %d)"
				 "%s", reason, destroyed ? ", destroyed" : "");
		}
		if (timed_out && (res->status == VM_STATUS_OK ||
				  res->status == VM_STATUS_OOPS)) {
			res->status = VM_STATUS_TIMEOUT;
			snprintf(res->reason, sizeof(res->reason),
				 "no end after %u s: destroyed%s%s", timeout_s,
				 c->gl.event ? " after: " : "", c->gl.reason);
		}
	}
	free(kpath);
	free(ipath);
	strbuf_release(&xml);
	console_put(c);
	return ret;
}

int vm_name_matches(const char *name, const char *prefix)
{
	size_t n;

	if (!prefix)
		prefix = vm_name_prefix();
	n = strlen(prefix);
	if (strncmp(name, prefix, n))
		return 0;
	if (strcmp(prefix, VM_PREFIX))
		return 1;
	/* The plain prefix owns "kregress-<hex>" only, not kregress-t12-... */
	name += n;
	if (strlen(name) != 2 * VM_RAND_BYTES)
		return 0;
	return strspn(name, "0123456789abcdef") == 2 * VM_RAND_BYTES;
}

static int for_each_prefixed(struct vm_host *h, const char *prefix,
			     int destroy, int *count)
{
	virDomainPtr *doms = NULL;
	int i, n, found = 0, ret = 0;

	if (!prefix)
		prefix = vm_name_prefix();
	if (strncmp(prefix, VM_PREFIX, strlen(VM_PREFIX)))
		return error("vm", "%s: refusing a prefix without '%s'",
			     prefix, VM_PREFIX);
	n = virConnectListAllDomains(h->conn, &doms,
				     VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0)
		return error("vm", "%s: list domains: %s", h->uri,
			     virt_error());
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && vm_name_matches(name, prefix)) {
			if (!destroy) {
				found++;
			} else if (virDomainDestroy(doms[i]) == 0) {
				log_info("vm", "%s: reaped leftover domain %s",
					 h->uri, name);
				found++;
			} else if (virGetLastErrorCode() == VIR_ERR_NO_DOMAIN ||
				   virGetLastErrorCode() ==
				   VIR_ERR_OPERATION_INVALID) {
				/* it ended between the list and now */
			} else {
				ret = error("vm", "%s: destroy %s: %s", h->uri,
					    name, virt_error());
			}
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	if (count)
		*count = found;
	return ret;
}

int vm_reap(struct vm_host *h, const char *prefix, int *reaped)
{
	return for_each_prefixed(h, prefix, 1, reaped);
}

int vm_count(struct vm_host *h, const char *prefix, int *count)
{
	return for_each_prefixed(h, prefix, 0, count);
}
