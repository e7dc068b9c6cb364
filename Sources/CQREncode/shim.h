#ifndef SFUMATO_CQRENCODE_SHIM_H
#define SFUMATO_CQRENCODE_SHIM_H
// Debian's libqrencode: the QR code of the studio's URL that `sfumato studio --lan` prints, so an
// iPad's camera opens it.
#include <qrencode.h>
#endif
