/* t-sha256.c - SHA-256 against the FIPS 180-4 example vectors. */
#include <string.h>

#include "sha256.h"
#include "tap.h"

int main(void)
{
	char hex[SHA256_HEX_LEN + 1];
	char million[1000];
	struct sha256 s;
	int i;

	sha256_hex("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
		    "7852b855", "empty string");
	sha256_hex("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61"
		    "f20015ad", "abc");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		   56, hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd4"
		    "19db06c1", "two-block message (56 bytes)");
	memset(million, 'a', sizeof(million));
	sha256_init(&s);
	for (i = 0; i < 1000; i++)
		sha256_update(&s, million, sizeof(million));
	sha256_final_hex(&s, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39cc"
		    "c7112cd0", "one million 'a' in 1000-byte pieces");
	sha256_init(&s);
	for (i = 0; i < 3; i++)
		sha256_update(&s, "abc" + i, 1);
	sha256_final_hex(&s, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61"
		    "f20015ad", "abc fed byte by byte");
	return done_testing();
}
