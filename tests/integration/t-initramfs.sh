#!/bin/bash
# kregress initramfs: the archive cpio(1) and the kernel's unpacker read,
# gzip or not, cached by content.
. "$KREGRESS_SRC/tests/lib/tap.sh"
command -v cpio >/dev/null || skip_all "cpio is not installed"

kr="$KREGRESS_BUILD/kregress"

mkdir -p "$tmp/w/x86_64"
printf '#!/bin/sh\necho init\n' > "$tmp/w/x86_64/init"
for w in thp-fault memset-order mremap zero-swap page-zero-check; do
	printf 'binary %s\n' "$w" > "$tmp/w/x86_64/$w"
done
chmod 755 "$tmp/w/x86_64"/*
echo "thp-fault --size-mb 16" > "$tmp/plan"
echo data > "$tmp/extra"

plan 16

"$kr" initramfs --out "$tmp/a.cpio" --workloads "$tmp/w/x86_64" \
	--plan "$tmp/plan" "$tmp/extra:/etc/extra:0600" > /dev/null
is $? 0 "pack an uncompressed archive"
cpio -it < "$tmp/a.cpio" 2>/dev/null | sort > "$tmp/list"
cat > "$tmp/want" <<'LIST'
bin
bin/memset-order
bin/mremap
bin/page-zero-check
bin/thp-fault
bin/zero-swap
dev
dev/console
etc
etc/extra
init
plan
proc
sys
tmp
LIST
diff -u "$tmp/want" "$tmp/list" >&2
ok $? "cpio -t lists init, workloads in /bin, plan, extra and dirs"

mkdir "$tmp/x"
(cd "$tmp/x" && cpio -id --no-absolute-filenames < "$tmp/a.cpio" \
	2>/dev/null)
cmp -s "$tmp/x/init" "$tmp/w/x86_64/init"; ok $? "init extracted intact"
cmp -s "$tmp/x/plan" "$tmp/plan"; ok $? "plan extracted intact"
cmp -s "$tmp/x/bin/mremap" "$tmp/w/x86_64/mremap"
ok $? "workload extracted intact"
is "$(stat -c %a "$tmp/x/init")" 755 "init is executable"
is "$(stat -c %a "$tmp/x/etc/extra")" 600 "explicit mode kept"
cpio -itv < "$tmp/a.cpio" 2>/dev/null | grep -q '^crw------- .* 5, *1 .* dev/console$'
ok $? "dev/console is character device 5,1"

"$kr" initramfs --out "$tmp/b.cpio" --workloads "$tmp/w/x86_64" \
	--plan "$tmp/plan" "$tmp/extra:/etc/extra:0600" > /dev/null
cmp -s "$tmp/a.cpio" "$tmp/b.cpio"; ok $? "packing is reproducible"

"$kr" initramfs --gzip --out "$tmp/a.cpio.gz" --workloads "$tmp/w/x86_64" \
	--plan "$tmp/plan" > /dev/null
gzip -dc "$tmp/a.cpio.gz" | cpio -it 2>/dev/null | grep -qx init
ok $? "gzip variant decompresses to an archive with /init"

p1=$("$kr" initramfs --gzip --cache "$tmp/cache" \
	--workloads "$tmp/w/x86_64" --plan "$tmp/plan")
p2=$("$kr" initramfs --gzip --cache "$tmp/cache" \
	--workloads "$tmp/w/x86_64" --plan "$tmp/plan")
[ -n "$p1" ] && [ "$p1" = "$p2" ] && [ -s "$p1" ]
ok $? "same contents, same cached archive"
echo "thp-fault --size-mb 32" > "$tmp/plan"
p3=$("$kr" initramfs --gzip --cache "$tmp/cache" \
	--workloads "$tmp/w/x86_64" --plan "$tmp/plan")
[ -n "$p3" ] && [ "$p3" != "$p1" ]; ok $? "another plan, another archive"

"$kr" initramfs --out "$tmp/bad.cpio" "$tmp/extra:relative" 2>/dev/null
is $? 1 "a relative destination is refused"
"$kr" initramfs --out "$tmp/bad.cpio" "$tmp/extra:/x:999" 2>/dev/null
is $? 1 "a bad mode is refused"
"$kr" initramfs --out "$tmp/bad.cpio" "$tmp/missing:/x" 2>/dev/null
is $? 1 "a missing source is refused"
"$kr" initramfs "$tmp/extra:/x" 2>/dev/null
is $? 2 "neither --out nor --cache is a usage error"
done_testing
